"""Train a 3-layer MLP on MNIST-shaped data.

Fixture for tools/measure_memory.py (see test/memory/README.md): parse_args,
build, forward_loss, train_step and main follow the fixture convention.
"""
import argparse
import types

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

INPUT_DIM = 28 * 28
NUM_CLASSES = 10
HIDDEN = [512, 256]


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--batch-size", type=int, default=64)
    p.add_argument("--lr", type=float, default=0.01)
    p.add_argument("--momentum", type=float, default=0.9)
    p.add_argument("--dropout", type=float, default=0.2)
    p.add_argument("--epochs", type=int, default=10)
    p.add_argument("--max-steps", type=int, default=None)
    return p.parse_args(argv)


class MLP(nn.Module):
    def __init__(self, in_dim, hidden, num_classes, dropout):
        super().__init__()
        self.fc1 = nn.Linear(in_dim, hidden[0])
        self.fc2 = nn.Linear(hidden[0], hidden[1])
        self.fc3 = nn.Linear(hidden[1], num_classes)
        self.drop = nn.Dropout(dropout)

    def forward(self, x):
        x = x.flatten(1)
        x = self.drop(F.relu(self.fc1(x)))
        x = self.drop(F.relu(self.fc2(x)))
        return self.fc3(x)


def build(args):
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model = MLP(INPUT_DIM, HIDDEN, NUM_CLASSES, args.dropout).to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=args.momentum)
    images = torch.randn(1024, 1, 28, 28)
    labels = torch.randint(0, NUM_CLASSES, (1024,))
    loader = DataLoader(TensorDataset(images, labels), batch_size=args.batch_size, shuffle=True)
    return types.SimpleNamespace(models={"model": model}, optimizers={"optimizer": optimizer},
                                 loader=loader, device=device)


def forward_loss(s, batch):
    x, y = (t.to(s.device) for t in batch)
    return F.cross_entropy(s.models["model"](x), y)


def train_step(s, batch):
    opt = s.optimizers["optimizer"]
    opt.zero_grad(set_to_none=True)
    loss = forward_loss(s, batch)
    loss.backward()
    opt.step()
    return loss.item()


def main(argv=None):
    args = parse_args(argv)
    s = build(args)
    step = 0
    for epoch in range(args.epochs):
        for batch in s.loader:
            loss = train_step(s, batch)
            step += 1
            if step % 100 == 0:
                print(f"epoch {epoch} step {step} loss {loss:.4f}")
            if args.max_steps and step >= args.max_steps:
                return


if __name__ == "__main__":
    main()
