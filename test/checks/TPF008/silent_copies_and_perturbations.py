# TPF008 must stay silent: eval() is called on a model's own copy (an EMA
# generator made with deepcopy, an SWA average), which no optimizer steps,
# or before an attack whose optimizer steps only a perturbation tensor,
# with train() restored before the real step.
import copy

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.optim.swa_utils import AveragedModel


class Generator(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(64, 256), nn.BatchNorm1d(256), nn.ReLU(), nn.Linear(256, 784))

    def forward(self, z):
        return torch.tanh(self.body(z))


def train_gan(gen, disc, g_opt, steps, beta=0.999):
    gen_ema = copy.deepcopy(gen).eval().requires_grad_(False)
    gen.train()
    for _ in range(steps):
        z = torch.randn(32, 64)
        g_loss = F.softplus(-disc(gen(z))).mean()
        g_opt.zero_grad()
        g_loss.backward()
        g_opt.step()
        with torch.no_grad():
            for p_ema, p in zip(gen_ema.parameters(), gen.parameters()):
                p_ema.copy_(p.lerp(p_ema, beta))
    return gen_ema


def train_with_swa(model, opt, loader, epochs):
    averaged = AveragedModel(model)
    model.train()
    for _ in range(epochs):
        for x, y in loader:
            loss = F.cross_entropy(model(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
        averaged.update_parameters(model)
        averaged.eval()
        with torch.no_grad():
            print(sum(averaged(x).argmax(1).eq(y).sum().item() for x, y in loader))


def adversarial_loss(model, x, y, eps=0.03, iters=5):
    model.eval()
    delta = torch.zeros_like(x).uniform_(-eps, eps).requires_grad_()
    attack = torch.optim.SGD([delta], lr=eps / iters)
    for _ in range(iters):
        attack.zero_grad()
        (-F.cross_entropy(model(x + delta), y)).backward()
        attack.step()
        delta.data.clamp_(-eps, eps)
    model.train()
    return F.cross_entropy(model(x + delta.detach()), y)
