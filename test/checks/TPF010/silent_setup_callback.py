# TPF010 partial_seeding: nothing seeded here, but a start-up helper of the
# project is handed to the runner, which calls it before training.
import functools

import torch
import torch.nn.functional as F

from bench_utils import prepare_run


def run(init_fn, steps):
    model, opt, loader = init_fn()
    for _, (x, y) in zip(range(steps), loader):
        opt.zero_grad()
        F.mse_loss(model(x), y).backward()
        opt.step()


# case: the helper is bound with functools.partial and called by the runner
if __name__ == "__main__":
    run(functools.partial(prepare_run, lr=3e-4), steps=100)
