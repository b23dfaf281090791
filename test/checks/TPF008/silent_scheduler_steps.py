# TPF008: a learning-rate scheduler's `step()` changes the learning rate
# and trains nothing, so the mode an evaluation leaves does not reach it.
# Silent: a scheduler built by torch.optim.lr_scheduler (one of two, so
# the call is not resolved to the scheduler's method) stepped at the top of
# the epoch, before the training helper that calls `model.train()`.
# fires_scheduler_steps.py keeps the optimizer step reached in eval mode.
import torch
from torch import nn


class Head(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(6, 32), nn.BatchNorm1d(32), nn.Linear(32, 3))

    def forward(self, x):
        return self.net(x)


def score(model, batches):
    model.eval()
    with torch.no_grad():
        return sum(float(model(x).argmax(1).eq(y).sum()) for x, y in batches)


def run_epoch(model, opt, batches):
    model.train()
    for x, y in batches:
        opt.zero_grad()
        nn.functional.cross_entropy(model(x), y).backward()
        opt.step()


def fit(batches, held_out, epochs):
    model = Head()
    opt = torch.optim.AdamW(model.parameters(), lr=3e-4)
    if epochs > 10:
        warm = torch.optim.lr_scheduler.LinearLR(opt, start_factor=0.1, total_iters=epochs)
    else:
        warm = torch.optim.lr_scheduler.ConstantLR(opt, factor=0.5)
    score(model, held_out)
    for _ in range(epochs):
        warm.step()
        run_epoch(model, opt, batches)
        score(model, held_out)
    return model

