import torch
import torch.nn as nn

from config import TrainConfig


class Block(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.fc = nn.Linear(width, width)
        self.act = nn.GELU()

    def forward(self, x):
        return x + self.act(self.fc(x))


class TinyLM(nn.Module):
    def __init__(self, cfg: TrainConfig):
        super().__init__()
        self.emb = nn.Embedding(cfg.vocab, cfg.width)
        self.blocks = nn.Sequential(*[Block(cfg.width) for _ in range(cfg.depth)])
        self.head = nn.Linear(cfg.width, cfg.vocab)

    def forward(self, idx):
        return self.head(self.blocks(self.emb(idx)))
