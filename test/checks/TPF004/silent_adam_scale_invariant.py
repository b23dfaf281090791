# TPF004 must stay silent: the undivided losses are summed into the
# gradients of Adam (no weight_decay) and AdamW, and nothing in the file
# clips gradients. Adam's step m / (sqrt(v) + eps) is the same for N times
# the mean gradient as for the mean, so the step is not N times larger.
import torch
import torch.nn.functional as F


def meta_train(learner, tasks, n_tasks):
    outer = torch.optim.Adam(learner.parameters(), lr=1e-3)
    for round_ in range(10_000):
        for t in range(n_tasks):
            xs, ys = tasks.sample()
            F.nll_loss(learner(xs), ys).backward()
        outer.step()
        outer.zero_grad()


def finetune(unet, batches, every):
    tuner = torch.optim.AdamW(unet.parameters(), lr=2e-5, weight_decay=0.01)
    for n, (noisy, noise) in enumerate(batches):
        F.mse_loss(unet(noisy), noise).backward()
        if (n + 1) % every == 0:
            tuner.step()
            tuner.zero_grad()
