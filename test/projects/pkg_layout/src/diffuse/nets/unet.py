import torch.nn as nn


def _private_helper():
    return 3


class UNetLite(nn.Module):
    def __init__(self, channels=64):
        super().__init__()
        self.down = nn.Conv2d(3, channels, 3, padding=1)
        self.mid = nn.Conv2d(channels, channels, 3, padding=1)
        self.up = nn.Conv2d(channels, 3, 3, padding=1)

    def forward(self, x):
        return self.up(self.mid(self.down(x)).relu())
