# TPF010 partial_seeding: submodule imports bind `torch` again; the seeding
# calls must still count.
import argparse
import random

import numpy as np
import torch
import torch.nn.parallel
import torch.utils.data.distributed
import torch.nn.functional as F


# case: seeded under `if args.seed is not None`, after `import torch.nn.parallel`
def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--seed", type=int, default=None)
    args = parser.parse_args()
    if args.seed is not None:
        random.seed(args.seed)
        np.random.seed(args.seed)
        torch.manual_seed(args.seed)
    model = torch.nn.Linear(4, 2)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for step in range(100):
        x = torch.randn(8, 4) * random.uniform(0.5, 1.5) + np.random.rand()
        opt.zero_grad()
        F.cross_entropy(model(x), torch.zeros(8, dtype=torch.long)).backward()
        opt.step()
