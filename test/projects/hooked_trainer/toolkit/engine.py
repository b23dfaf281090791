# A training engine that owns its loop: the run's batch is its loader's
# (Settings.batch_size, stacked by its own collate function), and hooks
# registered with on() run before and after each step.
import torch
import torch.nn.functional as F
from torch.utils.data import DataLoader

from toolkit.settings import Settings


def stack_pairs(items):
    xs = torch.stack([x for x, _ in items])
    ys = torch.stack([y for _, y in items])
    return xs, ys


class Engine:
    def __init__(self, model, data, settings=None):
        self.model = model
        self.data = data
        self.settings = settings if settings is not None else Settings()
        self.hooks = {"before_step": [], "after_step": []}
        self.step = 0
        self.loss = None

    def on(self, event):
        def register(fn):
            self.hooks[event].append(fn)
            return fn
        return register

    def emit(self, event):
        for fn in self.hooks[event]:
            fn(self)

    def fit(self):
        s = self.settings
        opt = torch.optim.AdamW(self.model.parameters(), lr=s.lr)
        loader = DataLoader(self.data, batch_size=s.batch_size, shuffle=True, num_workers=s.workers,
                            collate_fn=stack_pairs)
        self.model.train()
        for epoch in range(s.epochs):
            for xb, yb in loader:
                self.emit("before_step")
                self.loss = F.cross_entropy(self.model(xb), yb)
                opt.zero_grad()
                self.loss.backward()
                opt.step()
                self.step += 1
                self.emit("after_step")
