# TPF015 must stay silent: schedulers stepped where their schedule is meant.
import torch
import torch.nn.functional as F
from torch.optim.lr_scheduler import CosineAnnealingLR, LambdaLR, OneCycleLR, StepLR


# case: per-batch OneCycleLR after the optimizer step
def train(model, loader, epochs):
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    sched = OneCycleLR(opt, max_lr=1e-3, epochs=epochs, steps_per_epoch=len(loader))
    for epoch in range(epochs):
        for x, y in loader:
            opt.zero_grad()
            F.cross_entropy(model(x), y).backward()
            opt.step()
            sched.step()


# case: warmup LambdaLR and cosine over total steps, per batch
def train_warmup(model, loader, epochs, warmup):
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    total = epochs * len(loader)
    warm = LambdaLR(opt, lambda s: min(1.0, (s + 1) / warmup))
    cosine = CosineAnnealingLR(opt, T_max=total)
    for epoch in range(epochs):
        for x, y in loader:
            opt.zero_grad()
            F.mse_loss(model(x), y).backward()
            opt.step()
            warm.step()
            cosine.step()


# case: epoch schedule after the batch loop
def train_epochs(model, loader, epochs):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    sched = StepLR(opt, step_size=30)
    for epoch in range(epochs):
        for x, y in loader:
            opt.zero_grad()
            F.cross_entropy(model(x), y).backward()
            opt.step()
        sched.step()


# case: StepLR with a step size in iterations, stepped per iteration
def train_iters(model, loader, epochs):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    sched = StepLR(opt, step_size=20000)
    for epoch in range(epochs):
        for x, y in loader:
            opt.zero_grad()
            F.cross_entropy(model(x), y).backward()
            opt.step()
            sched.step()


# case: fast-forward on resume, and an explicit epoch
def resume(model, loader, start_epoch, epochs):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    sched = StepLR(opt, step_size=10)
    for _ in range(start_epoch):
        sched.step()
    for epoch in range(start_epoch, epochs):
        sched.step(epoch)
        for x, y in loader:
            opt.zero_grad()
            F.cross_entropy(model(x), y).backward()
            opt.step()


# case: a scheduler whose kind is not known (built elsewhere)
def train_unknown(model, loader, opt, scheduler, epochs):
    for epoch in range(epochs):
        scheduler.step()
        for x, y in loader:
            opt.zero_grad()
            F.cross_entropy(model(x), y).backward()
            opt.step()


# case: ReduceLROnPlateau on the validation loss once per epoch
def train_plateau(model, loader, val_loss, epochs):
    opt = torch.optim.Adam(model.parameters())
    plateau = torch.optim.lr_scheduler.ReduceLROnPlateau(opt)
    for epoch in range(epochs):
        for x, y in loader:
            opt.zero_grad()
            F.mse_loss(model(x), y).backward()
            opt.step()
        plateau.step(val_loss(model))
