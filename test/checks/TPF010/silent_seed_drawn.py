# TPF010 silent: the seed is drawn at random on purpose, on every run
# (`opt.seed = random.randint(...)`, printed, then `torch.manual_seed`):
# the script does not aim at repeatable runs, and its `random` only draws
# that seed. Seeding `random` would just fix the seed the author chose to
# randomise.
import argparse
import random

import torch
import torch.nn.functional as F


def main(opt, model, loader, optimizer):
    opt.seed = random.randint(1, 10000)
    print("Random Seed: ", opt.seed)
    torch.manual_seed(opt.seed)
    for epoch in range(opt.epochs):
        for x, y in loader:
            optimizer.zero_grad()
            F.mse_loss(model(x), y).backward()
            optimizer.step()


if __name__ == "__main__":
    p = argparse.ArgumentParser()
    p.add_argument("--epochs", type=int, default=1)
