# TPF008: an optimizer over a bare `nn.Parameter` of the class (a
# calibration scale) updates no layer that eval mode changes; the wrapped
# network stays in eval on purpose while only the scale is fitted.
# fires_bare_parameter_steps.py keeps a step over the network's parameters.
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
        self.eval()
        with torch.no_grad():
            outs = [(self.net(self.body(x)), y) for x, y in batches]
        opt = torch.optim.LBFGS([self.scale], lr=0.05, max_iter=20)
        for _ in range(rounds):
            def closure():
                opt.zero_grad()
                loss = sum(nn.functional.cross_entropy(o * self.scale, y) for o, y in outs)
                loss.backward()
                return loss
            opt.step(closure)
        return float(self.scale)
