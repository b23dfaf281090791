# A class body is a function; methods are linked to their class; decorators
# are calls applied after MakeFunction; class attributes are body locals.
import torch.nn as nn


class Block(nn.Module):
    width = 64

    def __init__(self, d):
        super().__init__()
        self.fc = nn.Linear(d, self.width)

    @staticmethod
    def make():
        return Block(8)

    def forward(self, x):
        return self.helper(self.fc(x))

    def helper(self, h):
        return h.relu()
