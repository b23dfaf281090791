# A @staticmethod called on self takes no receiver: `self.prepare(batch)` returns the batch,
# not the module, so the module holds no copy of itself and the evaluation below, under
# no_grad, stays silent. (The same binding made the analyzer hang on learn2learn.)
import torch
import torch.nn as nn


class Head(nn.Module):
    def __init__(self, feats):
        super().__init__()
        self.proj = nn.Linear(16, 4)
        self.feats = self.prepare(feats)

    @staticmethod
    def prepare(x, scale=2.0):
        return x * scale

    def forward(self, x):
        return self.proj(self.prepare(x))


def evaluate(model, batches):
    model.eval()
    with torch.no_grad():
        for x in batches:
            model(x)


evaluate(Head(torch.zeros(16)), [torch.zeros(2, 16)])
