# TPF010 partial_seeding: every generator the script uses is seeded.
import random

import numpy as np
import torch
import torch.nn.functional as F


def seed_all_generators(seed):
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    torch.cuda.manual_seed_all(seed)


# case: a local helper seeds all three; the loop uses all three
def train(args, model, loader, optimizer):
    if args.seed is not None:
        seed_all_generators(args.seed)
    for epoch in range(args.epochs):
        for x, y in loader:
            if random.random() < 0.5:
                x = x + 0.01 * torch.from_numpy(np.random.randn(*x.shape)).float()
            optimizer.zero_grad()
            F.cross_entropy(model(x), y).backward()
            optimizer.step()
