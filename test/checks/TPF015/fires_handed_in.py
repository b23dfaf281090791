# TPF015 must fire: schedulers the resolution cannot name, known by their
# objects: one handed to the epoch helper, one that may be None.
import torch
import torch.nn as nn


def epoch(model, batches, optimizer, schedule):
    for x, y in batches:
        optimizer.zero_grad()
        nn.functional.mse_loss(model(x), y).backward()
        schedule.step()  # expect: TPF015
        optimizer.step()


def main(cfg, batches):
    torch.manual_seed(0)
    model = nn.Linear(4, 1)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    schedule = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=0.5, total_steps=1000)
    for _ in range(cfg.epochs):
        epoch(model, batches, optimizer, schedule)


class Fitter(nn.Module):
    def __init__(self):
        super().__init__()
        self.w = nn.Linear(3, 1)

    def fit(self, batches, cfg):
        opt = torch.optim.SGD(self.parameters(), lr=cfg.lr)
        decay = torch.optim.lr_scheduler.MultiStepLR(opt, cfg.milestones) if cfg.milestones else None
        for _ in range(cfg.epochs):
            if decay is not None:
                decay.step()  # expect: TPF015
            for x, y in batches:
                opt.zero_grad()
                nn.functional.mse_loss(self.w(x), y).backward()
                opt.step()
