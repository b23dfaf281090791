# TPF008 still fires when a scheduler steps between the evaluation and an
# optimizer step that trains the evaluated model without `train()`: the
# scheduler's step is passed over, not taken for the training step.
import torch
from torch import nn


class Tagger(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Sequential(nn.Linear(12, 12), nn.Dropout(0.3), nn.Linear(12, 5))

    def forward(self, x):
        return self.proj(x)


def tune(tagger, batches, checks, rounds):
    opt = torch.optim.SGD(tagger.parameters(), lr=0.05, momentum=0.9)
    decay = torch.optim.lr_scheduler.ExponentialLR(opt, gamma=0.97)
    tagger.train()
    for _ in range(rounds):
        for x, y in batches:
            loss = nn.functional.cross_entropy(tagger(x), y)
            loss.backward()
            opt.step()
            opt.zero_grad()
        tagger.eval()  # expect: TPF008
        with torch.no_grad():
            print(sum(float(tagger(x).argmax(1).eq(y).float().mean()) for x, y in checks))
        decay.step()
