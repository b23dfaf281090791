# TPF008: `eval()` on a model's averaged copy switches only the copy.
# ema_pytorch's EMA overrides eval() to put its own copy in eval mode, and
# torch's AveragedModel holds a deep copy: the trained network keeps its
# mode. Silent: a trainer class that keeps an EMA in a field (set to None
# off the main process) and evaluates it between steps; a local
# AveragedModel evaluated each epoch. fires_averaged_copy.py keeps the eval
# of the trained network itself.
import torch
from torch import nn
from torch.optim.swa_utils import AveragedModel
from ema_pytorch import EMA


class Denoiser(nn.Module):
    def __init__(self):
        super().__init__()
        self.block = nn.Sequential(nn.Conv1d(2, 16, 3, padding=1), nn.Dropout(0.1), nn.Conv1d(16, 2, 3, padding=1))

    def forward(self, x):
        return self.block(x)


class Runner:
    def __init__(self, net, main_process):
        self.net = net
        self.opt = torch.optim.Adam(net.parameters(), lr=2e-4)
        self.ema = None
        if main_process:
            self.ema = EMA(net, beta=0.995)

    def run(self, batches, probe, every):
        self.net.train()
        for i, x in enumerate(batches):
            loss = (self.net(x + torch.randn_like(x)) - x).pow(2).mean()
            loss.backward()
            self.opt.step()
            self.opt.zero_grad()
            if self.ema is not None:
                self.ema.update()
                if i % every == 0:
                    self.ema.eval()
                    with torch.no_grad():
                        print(float(self.ema(probe).abs().mean()))


def swa_fit(net, batches, probe, epochs):
    opt = torch.optim.SGD(net.parameters(), lr=0.01)
    swa = AveragedModel(net)
    net.train()
    for _ in range(epochs):
        for x in batches:
            opt.zero_grad()
            net(x).pow(2).mean().backward()
            opt.step()
        swa.update_parameters(net)
        swa.eval()
        with torch.no_grad():
            print(float(swa(probe).mean()))
