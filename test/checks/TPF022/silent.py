# TPF022 backward_without_graph: correct steps that must stay silent.
import torch
import torch.nn as nn
import torch.nn.functional as F


# case: no_grad only for the metrics, the loss is computed outside it
def train(model, loader, opt):
    for x, y in loader:
        opt.zero_grad()
        out = model(x)
        loss = F.cross_entropy(out, y)
        loss.backward()
        opt.step()
        with torch.no_grad():
            acc = (out.argmax(1) == y).float().mean()
        print(acc.item())


# case: a per-element loss reduced before backward
def train_weighted(model, loader, opt, weights):
    criterion = nn.CrossEntropyLoss(reduction="none")
    for x, y in loader:
        opt.zero_grad()
        loss = criterion(model(x), y)
        (loss * weights[y]).mean().backward()
        loss.mean().backward()
        opt.step()


# case: enable_grad inside no_grad (a meta-learning inner step)
def inner_step(model, x, y, opt):
    with torch.no_grad():
        with torch.enable_grad():
            loss = F.cross_entropy(model(x), y)
        loss.backward()
        opt.step()


# case: backward with an explicit gradient on a per-element loss
def train_grad(model, loader, opt):
    for x, y in loader:
        opt.zero_grad()
        loss = F.mse_loss(model(x), y, reduction="none")
        loss.backward(torch.ones_like(loss))
        opt.step()


# case: frozen backbone, trainable head: correct fine-tuning
def finetune(backbone, head, loader):
    for p in backbone.parameters():
        p.requires_grad = False
    opt = torch.optim.SGD(head.parameters(), lr=0.01)
    for x, y in loader:
        opt.zero_grad()
        with torch.no_grad():
            feats = backbone(x)
        loss = F.cross_entropy(head(feats), y)
        loss.backward()
        opt.step()


# case: reduction="mean" spelled out
def train_mean(model, loader, opt):
    criterion = nn.CrossEntropyLoss(reduction="mean")
    for x, y in loader:
        opt.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        opt.step()
