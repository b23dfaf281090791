# TPF010 silent: training seeds torch from the clock on purpose (each rank
# and each run differ), and numpy is reseeded from the OS in the sampler
# (`np.random.seed()`); the fixed seed later only fixes a sample grid. Runs
# are meant to differ, so no generator is missing a seed (`random` too).
import random
import time

import numpy as np
import torch
import torch.nn.functional as F


def sampler(n):
    while True:
        np.random.seed()
        yield from np.random.permutation(n)


def train(model, data, optimizer, rank):
    torch.manual_seed(int(time.time()) + rank * 999)
    order = sampler(len(data))
    for step in range(100):
        x, y = data[next(order)]
        if random.random() < 0.5:
            x = -x
        optimizer.zero_grad()
        F.mse_loss(model(x), y).backward()
        optimizer.step()
    torch.manual_seed(2020)
    return model(torch.randn(16, 8))


if __name__ == "__main__":
    train(torch.nn.Linear(8, 1), [(torch.randn(8), torch.randn(1))] * 4, None, 0)
