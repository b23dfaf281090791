# tpf: target=a100
"""An exponential moving average of the weights, kept as a second module made with
`copy.deepcopy` and updated in place under `torch.no_grad()`; the script evaluates the
EMA copy, never steps it. The copy is resident (weights) but gets no .grad and no AdamW
state: "trainable" counts the online model only, and gradients and optimizer state are
its own. torch 1.13 counts 373,834 parameters in each copy."""
import copy

import torch
import torch.nn.functional as F
from torch import nn


def conv_bn(cin, cout):
    return nn.Sequential(nn.Conv2d(cin, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU())


class SmallNet(nn.Module):
    def __init__(self, classes=10):
        super().__init__()
        self.body = nn.Sequential(conv_bn(3, 64), nn.MaxPool2d(2), conv_bn(64, 128), nn.MaxPool2d(2),
                                  conv_bn(128, 256), nn.AdaptiveAvgPool2d(1), nn.Flatten())
        self.fc = nn.Linear(256, classes)

    def forward(self, x):
        return self.fc(self.body(x))


@torch.no_grad()
def ema_update(ema, online, decay=0.999):
    for pe, po in zip(ema.parameters(), online.parameters()):
        pe.mul_(decay).add_(po, alpha=1 - decay)


net = SmallNet().cuda()
ema = copy.deepcopy(net)
opt = torch.optim.AdamW(net.parameters(), lr=3e-4, weight_decay=0.05)

for step in range(1000):
    images = torch.randn(256, 3, 32, 32, device="cuda")
    labels = torch.randint(0, 10, (256,), device="cuda")
    loss = F.cross_entropy(net(images), labels)
    opt.zero_grad(set_to_none=True)
    loss.backward()
    opt.step()
    ema_update(ema, net)
    if step % 100 == 0:
        with torch.no_grad():
            acc = (ema(images).argmax(1) == labels).float().mean()
