# TPF008 still fires next to an averaged copy when the trained network
# itself is put in eval mode for the check and never back in train mode.
import torch
from torch import nn
from ema_pytorch import EMA


class Smoother(nn.Module):
    def __init__(self):
        super().__init__()
        self.f = nn.Sequential(nn.Linear(3, 30), nn.Dropout(0.25), nn.Linear(30, 3))

    def forward(self, x):
        return self.f(x)


def train(batches, probe):
    net = Smoother()
    ema = EMA(net, beta=0.99)
    opt = torch.optim.Adam(net.parameters(), lr=1e-3)
    net.train()
    for x in batches:
        opt.zero_grad()
        (net(x) - x).abs().mean().backward()
        opt.step()
        ema.update()
        net.eval()  # expect: TPF008
        with torch.no_grad():
            print(float(net(probe).mean()), float(ema(probe).mean()))
