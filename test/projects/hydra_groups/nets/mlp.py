from torch import nn


class ResidualMLP(nn.Module):
    def __init__(self, width, depth, norm):
        super().__init__()
        self.blocks = nn.ModuleList(nn.Sequential(nn.Linear(width, width), norm) for _ in range(depth))

    def forward(self, x):
        for b in self.blocks:
            x = x + b(x)
        return x
