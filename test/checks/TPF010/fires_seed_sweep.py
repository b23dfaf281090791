# TPF010 partial_seeding: a loop over seeds that trains a run per seed is
# start-up seeding, once per run: seeding numpy alone there leaves torch's
# initialization and shuffling different between runs of one seed.
import numpy as np
import torch


def run(seed_value, data):
    model = torch.nn.Linear(10, 1)
    opt = torch.optim.Adam(model.parameters())
    for x, y in data:
        opt.zero_grad()
        torch.nn.functional.mse_loss(model(x), y).backward()
        opt.step()
    return model


# case: each run seeds numpy (its data order) but not torch
def sweep(data):
    for s in (1, 2, 3):
        np.random.seed(s)  # expect: TPF010
        order = np.random.permutation(len(data))
        run(s, [data[i] for i in order])


if __name__ == "__main__":
    sweep([])
