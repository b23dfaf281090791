# TPF008 eval_without_train: a linear probe trains a new head on frozen
# features with the whole model in eval mode on purpose (the backbone's
# batch-norm statistics must not move); silent.
import torch
import torch.nn as nn
import torch.nn.functional as F


def evaluate(model, loader):
    model.eval()
    correct = 0
    with torch.no_grad():
        for x, y in loader:
            correct += (model(x).argmax(1) == y).sum().item()
    return correct


# case: the training helper puts the model in eval mode itself, before its loop
def probe_epoch(model, loader, opt):
    model.eval()
    for x, y in loader:
        loss = F.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()


def probe(model, train_loader, val_loader, epochs):
    for name, p in model.named_parameters():
        if not name.startswith("head."):
            p.requires_grad = False
    opt = torch.optim.SGD(model.head.parameters(), lr=0.1)
    for epoch in range(epochs):
        probe_epoch(model, train_loader, opt)
        print(epoch, evaluate(model, val_loader))


# case: eval mode set once before the training loop of the same function
def probe_inline(backbone, loader, dim, classes):
    backbone.requires_grad_(False)
    model = nn.Sequential(backbone, nn.Linear(dim, classes))
    model.eval()
    opt = torch.optim.Adam(model[1].parameters(), lr=1e-3)
    for x, y in loader:
        opt.zero_grad()
        F.cross_entropy(model(x), y).backward()
        opt.step()


# case: the helper sets train() itself before each step, after a validation
def finetune_epoch(model, loader, opt):
    model.train()
    for x, y in loader:
        opt.zero_grad()
        F.cross_entropy(model(x), y).backward()
        opt.step()


def finetune(model, train_loader, val_loader, epochs):
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    for epoch in range(epochs):
        finetune_epoch(model, train_loader, opt)
        evaluate(model, val_loader)


# case: a training helper that picks the mode before stepping on each path
def mode_epoch(model, loader, opt, probe_only):
    if probe_only:
        model.eval()
    else:
        model.train()
    for x, y in loader:
        opt.zero_grad()
        F.cross_entropy(model(x), y).backward()
        opt.step()


def run(model, train_loader, val_loader, epochs, probe_only):
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    for epoch in range(epochs):
        mode_epoch(model, train_loader, opt, probe_only)
        evaluate(model, val_loader)
