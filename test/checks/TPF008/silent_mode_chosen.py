# TPF008 stays silent: eval mode changes nothing in a model without
# dropout or batch norm (wrapped or not), and an eval that runs before
# every step of the loop is the mode chosen for training, not one left
# over from validation.
import torch
from torch import nn


def fit_linear_probe(train_batches, val_batches, epochs):
    probe = nn.DataParallel(nn.Sequential(nn.Linear(64, 32), nn.GELU(), nn.Linear(32, 10)))
    opt = torch.optim.AdamW(probe.parameters())
    for epoch in range(epochs):
        for x, y in train_batches:
            opt.zero_grad()
            nn.functional.cross_entropy(probe(x), y).backward()
            opt.step()
        probe.eval()
        with torch.no_grad():
            acc = sum((probe(x).argmax(-1) == y).float().mean().item() for x, y in val_batches)
        print(epoch, acc)


def spsa(batches, eps=1e-3):
    net = nn.Sequential(nn.Linear(8, 8), nn.Dropout(0.1), nn.Linear(8, 1))
    opt = torch.optim.SGD(net.parameters(), lr=1e-2)
    for x, y in batches:
        net.eval()
        with torch.no_grad():
            dirs = [torch.randn_like(p) for p in net.parameters()]
            for p, d in zip(net.parameters(), dirs):
                p.add_(eps * d)
            up = nn.functional.mse_loss(net(x), y)
            for p, d in zip(net.parameters(), dirs):
                p.sub_(2 * eps * d)
            down = nn.functional.mse_loss(net(x), y)
            for p, d in zip(net.parameters(), dirs):
                p.add_(eps * d)
                p.grad = (up - down) / (2 * eps) * d
        opt.step()
