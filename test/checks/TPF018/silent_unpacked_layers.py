# TPF018 reads the layers of `nn.Sequential(*stem, *blocks, *head)` from the
# lists it unpacks: list displays, a comprehension, one of the lists an
# if/elif picks, and a builder of the file (`group_norm(c)` returns
# nn.GroupNorm, which has no mode). Silent: none of them has a layer train
# mode changes, so a no_grad check in train mode computes what eval would.
# fires_unpacked_layers.py keeps a block list with dropout.
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
    blocks = [Block(32) for _ in range(4)]
    head = [group_norm(32), nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(32, 10)]
    net = nn.Sequential(*stem, *blocks, *head)
    opt = torch.optim.SGD(net.parameters(), lr=0.05)
    for _ in range(epochs):
        for x, y in batches:
            opt.zero_grad()
            nn.functional.cross_entropy(net(x), y).backward()
            opt.step()
        print(probe(net, batches))
