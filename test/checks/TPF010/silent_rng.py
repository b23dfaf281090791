# TPF010 partial_seeding: generators built with their own seed.
import random

import numpy as np
import torch
import torch.nn.functional as F


# case: np.random.default_rng(seed) and random.Random(seed) next to torch.manual_seed
def main(model, xs, ys, opt, seed=3):
    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    py_rng = random.Random(seed)
    for epoch in range(4):
        order = rng.permutation(len(xs))
        for i in order:
            scale = py_rng.uniform(0.9, 1.1)
            opt.zero_grad()
            F.mse_loss(model(xs[i] * scale), ys[i]).backward()
            opt.step()
