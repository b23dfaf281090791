# TPF008: a module class that overrides `train(self, mode=True)` (handing on
# to nn.Module.train) sets train mode when a helper calls `self.train()`;
# the torch table leaves the call to the file's method, so the rule follows
# it. Silent: the input normalizer frozen in eval after the first pass,
# while every update helper starts with `self.train()`.
# fires_train_override.py keeps an update helper that never calls it.
import torch
from torch import nn


class ValueLearner(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.norm = nn.BatchNorm1d(width)
        self.head = nn.Sequential(nn.Linear(width, 128), nn.Dropout(0.05), nn.Linear(128, 1))
        self.opt = torch.optim.Adam(self.parameters(), lr=3e-4)

    def train(self, mode=True):
        self.training_calls = getattr(self, "training_calls", 0) + 1
        return nn.Module.train(self, mode)

    def update_once(self, obs, target):
        self.train()
        self.opt.zero_grad()
        loss = (self.head(self.norm(obs)).squeeze(1) - target).pow(2).mean()
        loss.backward()
        self.opt.step()
        return loss.item()

    def fit(self, minibatches, passes):
        total = 0.0
        for _ in range(passes):
            for obs, target in minibatches:
                total += self.update_once(obs, target)
            self.norm.eval()
        return total
