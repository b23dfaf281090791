"""Models of the project, in their own module: one with no layer that
train mode changes, one with dropout."""
from torch import nn


class Upsampler(nn.Module):
    def __init__(self, channels, factor):
        super().__init__()
        self.body = nn.Sequential(
            nn.ConvTranspose1d(1, channels, factor * 2, stride=factor, padding=factor // 2),
            nn.LeakyReLU(0.2),
            nn.Conv1d(channels, 1, 7, padding=3),
            nn.Tanh(),
        )

    def forward(self, x):
        return self.body(x)


class NoisyUpsampler(Upsampler):
    def __init__(self, channels, factor):
        super().__init__(channels, factor)
        self.drop = nn.Dropout(0.1)

    def forward(self, x):
        return self.drop(super().forward(x))
