# TPF010 fires: a seed drawn at random only when none was given is a
# default (the printed seed repeats the run), and the same generator drawing
# its own next seed is no fresh entropy; numpy stays unseeded either way.
import argparse
import random

import numpy as np
import torch
import torch.nn.functional as F


# case: `if opt.seed is None: opt.seed = random.randint(...)`, numpy missed
def train(opt, model, data, optimizer):
    if opt.seed is None:
        opt.seed = random.randint(1, 10000)
    print("Random Seed: ", opt.seed)
    random.seed(opt.seed)  # expect: TPF010
    torch.manual_seed(opt.seed)
    for step in range(100):
        idx = np.random.choice(len(data), size=8, replace=False)
        x, y = data[idx]
        optimizer.zero_grad()
        F.mse_loss(model(x), y).backward()
        optimizer.step()


if __name__ == "__main__":
    p = argparse.ArgumentParser()
    p.add_argument("--seed", type=int)
