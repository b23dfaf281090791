# TPF003 silent: each iteration rebuilds the model before a helper runs
# backward and step on it once (a parametrised unit test, a sweep through
# a setup method): the new parameters' gradients start empty, so nothing
# carries over from one iteration to the next.
import torch
from torch import nn


def train_once(net, batch):
    loss = net(batch).pow(2).mean()
    loss.backward()
    opt = torch.optim.Adam(net.parameters(), lr=1e-3)
    opt.step()
    return net


class WidthSweep:
    def _build(self, width):
        self.net = nn.Sequential(nn.Linear(4, width), nn.Tanh(), nn.Linear(width, 1))
        self.batch = torch.randn(8, 4)

    def _fit(self, net):
        net(self.batch).sum().backward()
        torch.optim.SGD(net.parameters(), lr=0.5).step()

    # case: a setup method stores a new model on self in every iteration
    def test_widths(self):
        for width in (2, 8, 32):
            self._build(width)
            self._fit(self.net)
            assert self.net[0].weight.grad is not None


# case: a local model built in the loop, handed to a module-level helper
def sweep_depths(batch):
    for depth in range(1, 4):
        layers = [nn.Linear(4, 4) for _ in range(depth)]
        stack = nn.Sequential(*layers)
        train_once(stack, batch)
