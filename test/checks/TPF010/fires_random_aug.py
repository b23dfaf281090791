# TPF010 partial_seeding: an argparse script seeds torch and numpy, but its
# augmentation draws from Python's random.
import argparse
import random

import numpy as np
import torch
import torch.nn.functional as F


def augment(img):
    if random.random() < 0.5:
        img = torch.flip(img, dims=[-1])
    return img


# case: the seed comes from the command line; random is missed
def train(args, model, loader, opt):
    if args.seed is not None:
        np.random.seed(args.seed)  # expect: TPF010
        torch.manual_seed(args.seed)
    for epoch in range(args.epochs):
        for img, label in loader:
            opt.zero_grad()
            F.cross_entropy(model(augment(img)), label).backward()
            opt.step()


if __name__ == "__main__":
    p = argparse.ArgumentParser()
    p.add_argument("--seed", type=int, default=None)
