"""Text classifier on nn.TransformerEncoder (sentiment-style, batch_first).

Token + learned position embeddings, 2 post-LN encoder layers, mean pooling
over non-padding tokens, linear head. Adam with a warmup schedule.
Fixture for tools/measure_memory.py; see test/memory/README.md.
"""
import argparse
import types

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

VOCAB_SIZE = 8000
MAX_LEN = 128
D_MODEL = 256
N_HEAD = 8
N_LAYERS = 2
DIM_FF = 1024
NUM_CLASSES = 2
PAD = 0


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--batch-size", type=int, default=8)
    p.add_argument("--max-len", type=int, default=MAX_LEN)
    p.add_argument("--lr", type=float, default=3e-4)
    p.add_argument("--dropout", type=float, default=0.1)
    p.add_argument("--epochs", type=int, default=5)
    p.add_argument("--max-steps", type=int, default=None)
    return p.parse_args(argv)


class TextClassifier(nn.Module):
    def __init__(self, dropout):
        super().__init__()
        self.embed = nn.Embedding(VOCAB_SIZE, D_MODEL, padding_idx=PAD)
        self.pos = nn.Embedding(MAX_LEN, D_MODEL)
        layer = nn.TransformerEncoderLayer(d_model=D_MODEL, nhead=N_HEAD, dim_feedforward=DIM_FF,
                                           dropout=dropout, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, num_layers=N_LAYERS)
        self.head = nn.Linear(D_MODEL, NUM_CLASSES)

    def forward(self, tokens):
        pad_mask = tokens == PAD
        positions = torch.arange(tokens.size(1), device=tokens.device)
        x = self.embed(tokens) + self.pos(positions)
        x = self.encoder(x, src_key_padding_mask=pad_mask)
        keep = (~pad_mask).unsqueeze(-1).float()
        pooled = (x * keep).sum(1) / keep.sum(1).clamp(min=1.0)
        return self.head(pooled)


def build(args):
    device = "cuda" if torch.cuda.is_available() else "cpu"
    model = TextClassifier(args.dropout).to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
    tokens = torch.randint(1, VOCAB_SIZE, (256, args.max_len))
    lengths = torch.randint(args.max_len // 2, args.max_len + 1, (256,))
    tokens[torch.arange(args.max_len)[None, :] >= lengths[:, None]] = PAD
    labels = torch.randint(0, NUM_CLASSES, (256,))
    loader = DataLoader(TensorDataset(tokens, labels), batch_size=args.batch_size, shuffle=True)
    return types.SimpleNamespace(models={"model": model}, optimizers={"optimizer": optimizer},
                                 loader=loader, device=device)


def forward_loss(s, batch):
    tokens, labels = batch[0].to(s.device), batch[1].to(s.device)
    return F.cross_entropy(s.models["model"](tokens), labels)


def train_step(s, batch):
    opt = s.optimizers["optimizer"]
    opt.zero_grad()
    loss = forward_loss(s, batch)
    loss.backward()
    opt.step()
    return loss.item()


def main(argv=None):
    args = parse_args(argv)
    s = build(args)
    step = 0
    for _ in range(args.epochs):
        for batch in s.loader:
            train_step(s, batch)
            step += 1
            if args.max_steps and step >= args.max_steps:
                return


if __name__ == "__main__":
    main()
