"""Two-tower-style click model: user embedding + mean-pooled item history.

nn.Embedding for the user id, nn.EmbeddingBag(mode="mean") over a fixed-length
window of recently viewed item ids, an MLP on the concatenation, BCE on the
click label. Dense gradients (sparse=False), Adam. Fixture for
tools/measure_memory.py; see test/memory/README.md.
"""
import argparse
import types

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

NUM_USERS = 20000
NUM_ITEMS = 50000
EMBED_DIM = 64
HISTORY_LEN = 20


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--batch-size", type=int, default=256)
    p.add_argument("--lr", type=float, default=1e-3)
    p.add_argument("--hidden", type=int, default=256)
    p.add_argument("--epochs", type=int, default=3)
    p.add_argument("--max-steps", type=int, default=None)
    return p.parse_args(argv)


class ClickModel(nn.Module):
    def __init__(self, hidden):
        super().__init__()
        self.user_emb = nn.Embedding(NUM_USERS, EMBED_DIM)
        self.item_bag = nn.EmbeddingBag(NUM_ITEMS, EMBED_DIM, mode="mean")
        self.mlp = nn.Sequential(
            nn.Linear(2 * EMBED_DIM, hidden),
            nn.ReLU(),
            nn.Linear(hidden, hidden // 2),
            nn.ReLU(),
            nn.Linear(hidden // 2, 1),
        )

    def forward(self, users, history):
        u = self.user_emb(users)
        h = self.item_bag(history)  # (B, HISTORY_LEN) -> (B, EMBED_DIM), one bag per row
        return self.mlp(torch.cat([u, h], dim=1)).squeeze(1)


def build(args):
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model = ClickModel(args.hidden).to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
    n = 4096
    users = torch.randint(0, NUM_USERS, (n,))
    history = torch.randint(0, NUM_ITEMS, (n, HISTORY_LEN))
    clicks = torch.randint(0, 2, (n,)).float()
    loader = DataLoader(TensorDataset(users, history, clicks), batch_size=args.batch_size,
                        shuffle=True)
    return types.SimpleNamespace(models={"model": model}, optimizers={"optimizer": optimizer},
                                 loader=loader, device=device)


def forward_loss(s, batch):
    users, history, clicks = (t.to(s.device) for t in batch)
    return F.binary_cross_entropy_with_logits(s.models["model"](users, history), clicks)


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
