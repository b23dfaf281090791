# TPF018 still fires when one of the unpacked lists, built by a
# comprehension, holds dropout: the no_grad check runs with it active.
import torch
from torch import nn


def group_norm(c):
    return nn.GroupNorm(min(8, c), c)


class Block(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.conv = nn.Conv2d(c, c, 3, padding=1)
        self.gn = group_norm(c)

    def forward(self, x):
        return x + torch.relu(self.gn(self.conv(x)))


def probe(net, batches):
    hits = 0
    with torch.no_grad():
        for x, y in batches:
            hits += int((net(x).argmax(1) == y).sum())
    return hits


def main(kind, batches, epochs):
    if kind == "wide":
        stem = [nn.Conv2d(3, 32, 5, padding=2), group_norm(32), nn.SiLU()]
    elif kind == "narrow":
        stem = [nn.Conv2d(3, 32, 3, padding=1), nn.SiLU()]
    blocks = [nn.Sequential(Block(32), nn.Dropout2d(0.1)) for _ in range(4)]
    head = [group_norm(32), nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(32, 10)]
    net = nn.Sequential(*stem, *blocks, *head)
    opt = torch.optim.SGD(net.parameters(), lr=0.05)
    for _ in range(epochs):
        for x, y in batches:
            opt.zero_grad()
            nn.functional.cross_entropy(net(x), y).backward()
            opt.step()
        print(probe(net, batches))  # expect: TPF018
