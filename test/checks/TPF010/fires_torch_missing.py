# TPF010 partial_seeding: random and numpy are seeded, torch is not.
import random

import numpy as np
import torch.nn.functional as F


# case: the weights and dropout still draw from torch's generator
def main(model_fn, batches, make_opt):
    random.seed(0)  # expect: TPF010
    np.random.seed(0)
    model = model_fn()
    opt = make_opt(model)
    step = 0
    while step < 1000:
        x, y = batches[np.random.randint(len(batches))]
        opt.zero_grad()
        F.cross_entropy(model(x), y).backward()
        opt.step()
        step += 1


if __name__ == "__main__":
    import sys
    sys.exit(0)
