# TPF001 loss_appended_with_graph: the stored value comes from a method of
# the model other than forward, computed from the model's own parameters
# (an energy, a likelihood, a regularizer); it holds that pass's graph.
import torch
from torch import nn


class Flow(nn.Module):
    def __init__(self, dims):
        super().__init__()
        self.shift = nn.Parameter(torch.zeros(dims))
        self.log_scale = nn.Parameter(torch.zeros(dims))
        self.prior_scale = nn.Parameter(torch.ones(dims), requires_grad=False)

    def energy(self, x):
        z = (x - self.shift) * torch.exp(-self.log_scale)
        return 0.5 * z.pow(2).sum(-1).mean() + self.log_scale.sum()

    def prior(self):
        return self.prior_scale.log().sum()

    def scale_report(self):
        return self.log_scale.exp().mean().item()

    def forward(self, x):
        return self.energy(x)


def train(batches, steps_per_log):
    flow = Flow(16)
    opt = torch.optim.Adam(flow.parameters(), lr=1e-3)
    energies = []
    priors = []
    scales = []
    for step, x in enumerate(batches):
        opt.zero_grad()
        objective = flow(x)
        objective.backward()
        opt.step()
        energies.append(flow.energy(x))  # expect: TPF001
        priors.append(flow.prior())  # a frozen parameter: no graph
        scales.append(flow.scale_report())  # a float
        if step % steps_per_log == 0:
            print(sum(e.item() for e in energies) / len(energies), priors[-1], scales[-1])
