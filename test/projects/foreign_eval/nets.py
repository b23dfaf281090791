# Two generators: one without any layer that eval mode changes, one with dropout.
import torch.nn as nn


class PlainGenerator(nn.Module):
    def __init__(self, ch=8):
        super().__init__()
        self.net = nn.Sequential(nn.utils.weight_norm(nn.Conv1d(1, ch, 7, padding=3)), nn.LeakyReLU(0.2),
                                 nn.utils.weight_norm(nn.Conv1d(ch, 1, 7, padding=3)))

    def forward(self, x):
        return self.net(x).tanh()

    def remove_weight_norm(self):
        for layer in self.net:
            if len(layer.state_dict()) != 0:
                nn.utils.remove_weight_norm(layer)


class DropGenerator(nn.Module):
    def __init__(self, ch=8):
        super().__init__()
        self.net = nn.Sequential(nn.Conv1d(1, ch, 7, padding=3), nn.Dropout(0.1), nn.Conv1d(ch, 1, 7, padding=3))

    def forward(self, x):
        return self.net(x)
