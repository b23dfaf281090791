# TPF010 partial_seeding: seeding through a known helper.
import numpy as np
import pytorch_lightning as pl
import torch.nn.functional as F


# case: Lightning's seed_everything covers torch, numpy and random
def main(model, data, opt):
    pl.seed_everything(7)
    idx = np.random.permutation(len(data))
    for epoch in range(3):
        for i in idx:
            x, y = data[i]
            opt.zero_grad()
            F.mse_loss(model(x), y).backward()
            opt.step()
