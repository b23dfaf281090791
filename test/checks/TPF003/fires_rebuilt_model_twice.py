# TPF003 fires: the model is rebuilt in every iteration, but the helper
# runs backward and step on it twice in a row with no clear between: the
# second step applies the gradients of both passes.
import torch
from torch import nn


class DepthCheck:
    def _setup(self, depth):
        self.model = nn.Sequential(*[nn.Linear(3, 3) for _ in range(depth)])

    def _update(self, model):
        model(torch.ones(2, 3)).mean().backward()
        torch.optim.SGD(model.parameters(), lr=0.1).step()

    def test_two_updates(self):
        for depth in (1, 2):
            self._setup(depth)
            self._update(self.model)  # expect: TPF003
            self._update(self.model)


# case: a local model per case, updated twice by a module-level helper
def step_twice(net, x):
    net(x).sum().backward()
    torch.optim.Adam(net.parameters()).step()


def cases(xs):
    for x in xs:
        lin = nn.Linear(5, 1)
        step_twice(lin, x)  # expect: TPF003
        step_twice(lin, x)
