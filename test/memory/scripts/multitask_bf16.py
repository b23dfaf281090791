"""Multi-task MLP trained in pure bfloat16 (`model.bfloat16()`, no autocast).

Covers what the other fixtures do not: a trunk whose nn.ModuleList is
built by `append` in a for loop, a Sequential from an OrderedDict, task
heads in an nn.ModuleDict, a plain config class (no dataclass) next to a
hyperparameter dict, and RMSprop without momentum. Fixture for
tools/measure_memory.py; see test/memory/README.md for the convention.
"""
import argparse
import types
from collections import OrderedDict

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset


class Config:
    in_features = 384
    width = 768
    depth = 4
    tasks = {"topic": 20, "sentiment": 3}


HPARAMS = {"batch_size": 96, "lr": 1e-3, "alpha": 0.9}


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--epochs", type=int, default=5)
    p.add_argument("--max-steps", type=int, default=None)
    return p.parse_args(argv)


class MultiTask(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.stem = nn.Sequential(OrderedDict([
            ("proj", nn.Linear(cfg.in_features, cfg.width)),
            ("norm", nn.LayerNorm(cfg.width)),
            ("act", nn.GELU()),
        ]))
        self.trunk = nn.ModuleList()
        for _ in range(cfg.depth):
            self.trunk.append(nn.Linear(cfg.width, cfg.width))
        self.heads = nn.ModuleDict({name: nn.Linear(cfg.width, n) for name, n in cfg.tasks.items()})

    def forward(self, x):
        h = self.stem(x)
        for layer in self.trunk:
            h = h + F.silu(layer(h))
        return {name: head(h) for name, head in self.heads.items()}


def build(args):
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model = MultiTask(Config).to(device)
    model.bfloat16()
    optimizer = torch.optim.RMSprop(model.parameters(), lr=HPARAMS["lr"], alpha=HPARAMS["alpha"])
    data = TensorDataset(torch.randn(2048, Config.in_features).bfloat16(),
                         torch.randint(0, 20, (2048,)), torch.randint(0, 3, (2048,)))
    loader = DataLoader(data, batch_size=HPARAMS["batch_size"], shuffle=True)
    return types.SimpleNamespace(models={"model": model}, optimizers={"optimizer": optimizer},
                                 loader=loader, device=device)


def forward_loss(s, batch):
    x, topic, sentiment = (t.to(s.device) for t in batch)
    out = s.models["model"](x)
    return F.cross_entropy(out["topic"].float(), topic) + F.cross_entropy(out["sentiment"].float(), sentiment)


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
            if args.max_steps and step >= args.max_steps:
                return
        print(f"epoch {epoch}: loss {loss:.3f}")


if __name__ == "__main__":
    main()
