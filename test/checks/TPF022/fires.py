# TPF022 backward_without_graph: backward on a loss that has no graph, or
# on a per-element loss.
import torch
import torch.nn as nn
import torch.nn.functional as F

per_sample = nn.CrossEntropyLoss(reduction="none")


# case: the whole step runs inside no_grad
def train_no_grad(model, loader, opt):
    for x, y in loader:
        opt.zero_grad()
        with torch.no_grad():
            loss = F.cross_entropy(model(x), y)
        loss.backward()  # expect: TPF022
        opt.step()


# case: inference_mode around the forward and the loss
def train_inference(model, loader, opt, criterion):
    for x, y in loader:
        opt.zero_grad()
        with torch.inference_mode():
            out = model(x)
            loss = criterion(out, y)
        loss.backward()  # expect: TPF022
        opt.step()


# case: a module-level loss with reduction="none", no reduction before backward
def train_per_sample(model, loader, opt):
    for x, y in loader:
        opt.zero_grad()
        loss = per_sample(model(x), y)
        loss.backward()  # expect: TPF022
        opt.step()


# case: a functional loss with reduction="none"
def train_functional(model, loader, opt):
    for x, y in loader:
        opt.zero_grad()
        loss = F.mse_loss(model(x), y, reduction="none")
        loss.backward()  # expect: TPF022
        opt.step()


# case: a local loss module with reduction="none"
def train_local(model, loader, opt):
    criterion = nn.BCEWithLogitsLoss(reduction="none")
    for x, y in loader:
        opt.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()  # expect: TPF022
        opt.step()
