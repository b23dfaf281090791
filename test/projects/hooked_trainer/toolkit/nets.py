# A digit-sum classifier: embedded digits plus a learned position table,
# mixed by a two-layer MLP over the flattened sequence.
import torch
import torch.nn as nn


class DigitMixer(nn.Module):
    def __init__(self, n_digits=8, vocab=10, width=64, classes=73):
        super().__init__()
        self.embed = nn.Embedding(vocab, width)
        self.pos = nn.Parameter(torch.zeros(n_digits, width))
        self.mix = nn.Sequential(
            nn.Linear(n_digits * width, 4 * width),
            nn.GELU(),
            nn.LayerNorm(4 * width),
            nn.Linear(4 * width, classes),
        )

    def forward(self, x):
        h = self.embed(x) + self.pos
        return self.mix(h.flatten(1))
