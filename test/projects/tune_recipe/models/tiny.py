"""Decoder builders a config names by dotted path."""
from torch import nn


class Block(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.up = nn.Linear(dim, 4 * dim)
        self.down = nn.Linear(4 * dim, dim)

    def forward(self, x):
        return x + self.down(nn.functional.gelu(self.up(self.norm(x))))


class TinyDecoder(nn.Module):
    def __init__(self, vocab_size, dim, layers):
        super().__init__()
        self.embed = nn.Embedding(vocab_size, dim)
        self.blocks = nn.ModuleList([Block(dim) for _ in range(layers)])
        self.norm = nn.LayerNorm(dim)
        self.head = nn.Linear(dim, vocab_size, bias=False)

    def forward(self, tokens):
        h = self.embed(tokens)
        for block in self.blocks:
            h = block(h)
        return self.head(self.norm(h))


def tiny_decoder(vocab_size, dim, layers):
    return TinyDecoder(vocab_size, dim, layers)


def wide_decoder(vocab_size, dim, layers):
    return TinyDecoder(vocab_size, 2 * dim, layers)
