# TPF015 lr_scheduler_step_misplaced: where the autofix moves the scheduler
# after the statement holding the optimizer step, and where it does not.
import torch
import torch.nn.functional as F
from torch.optim.lr_scheduler import CosineAnnealingLR, LinearLR


def train_one_epoch(model, loader, opt):
    for x, y in loader:
        opt.zero_grad()
        F.cross_entropy(model(x), y).backward()
        opt.step()


# case: before a training helper that steps: moved after the call
def fit(model, loader, epochs):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    sched = CosineAnnealingLR(opt, T_max=epochs)
    for epoch in range(epochs):
        sched.step()  # expect: TPF015
        model.train()
        train_one_epoch(model, loader, opt)
        print(epoch)


# case: the batch loop stops early with its own break: moved after the loop
def fit_limited(model, loader, epochs, max_steps):
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    warmup = LinearLR(opt, start_factor=0.1, total_iters=5)
    for epoch in range(epochs):
        warmup.step()  # expect: TPF015
        for i, (x, y) in enumerate(loader):
            if i >= max_steps:
                break
            opt.zero_grad()
            F.mse_loss(model(x), y).backward()
            opt.step()


# case: an early stop of the epoch loop inside the statement: not moved
def fit_early_stop(model, loader, epochs, target):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    sched = CosineAnnealingLR(opt, T_max=epochs)
    for epoch in range(epochs):
        sched.step()  # expect: TPF015
        if epoch % 2 == 0:
            loss = None
            for x, y in loader:
                opt.zero_grad()
                loss = F.mse_loss(model(x), y)
                loss.backward()
                opt.step()
            if loss is not None and loss.item() < target:
                break


# case: a skip between the scheduler and the step: not moved
def fit_skip(model, loader, epochs, frozen_epochs):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    sched = CosineAnnealingLR(opt, T_max=epochs)
    for epoch in range(epochs):
        sched.step()  # expect: TPF015
        if epoch < frozen_epochs:
            continue
        train_one_epoch(model, loader, opt)
