# TPF008 still fires when the optimizer after the eval steps every
# parameter of the module, the dropout network's included.
import torch
from torch import nn


class Calibrated(nn.Module):
    def __init__(self, net):
        super().__init__()
        self.net = net
        self.body = nn.Sequential(nn.Linear(10, 10), nn.Dropout(0.2))
        self.scale = nn.Parameter(torch.ones(1))

    def forward(self, x):
        return self.net(self.body(x)) * self.scale

    def fit_scale(self, batches, rounds):
        self.eval()  # expect: TPF008
        with torch.no_grad():
            outs = [(self.net(self.body(x)), y) for x, y in batches]
        opt = torch.optim.LBFGS(self.parameters(), lr=0.05, max_iter=20)
        for _ in range(rounds):
            def closure():
                opt.zero_grad()
                loss = sum(nn.functional.cross_entropy(o * self.scale, y) for o, y in outs)
                loss.backward()
                return loss
            opt.step(closure)
        return float(self.scale)
