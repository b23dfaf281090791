"""Density models whose training objective is not their forward."""
import torch
from torch import nn


class Mixture(nn.Module):
    def __init__(self, k, dims=2):
        super().__init__()
        self.means = nn.Parameter(torch.randn(k, dims))
        self.log_scale = nn.Parameter(torch.zeros(k))
        self.temperature = nn.Parameter(torch.ones(1), requires_grad=False)

    def nll(self, x):
        d = torch.cdist(x, self.means) / self.log_scale.exp()
        return -torch.logsumexp(-0.5 * d.pow(2), dim=-1).mean()

    def spread(self):
        return self.log_scale.exp().mean().item()

    def temp(self):
        return self.temperature * 2

    def forward(self, x):
        return self.nll(x) + 1e-3 * self.means.pow(2).sum()


class SquaredMixture(Mixture):
    def nll(self, x):
        d = torch.cdist(x, self.means)
        return -(d.pow(2).neg().exp().sum(-1) + 1e-9).log().mean()
