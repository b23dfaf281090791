# TPF004 must fire: the same Adam-family accumulation, but the file clips
# the gradient norm before the step (the norm sees the sum of `every`
# gradients, so the clip bites `every` times sooner), or the optimizer is
# plain SGD (its step grows with the gradient).
import torch
import torch.nn.functional as F


def finetune(unet, batches, every):
    tuner = torch.optim.AdamW(unet.parameters(), lr=2e-5)
    for n, (noisy, noise) in enumerate(batches):
        F.mse_loss(unet(noisy), noise).backward()  # expect: TPF004
        if (n + 1) % every == 0:
            torch.nn.utils.clip_grad_norm_(unet.parameters(), 1.0)
            tuner.step()
            tuner.zero_grad()


def plain(net, batches, every):
    sgd = torch.optim.SGD(net.parameters(), lr=0.1, momentum=0.9)
    for n, (x, y) in enumerate(batches):
        F.cross_entropy(net(x), y).backward()  # expect: TPF004
        if n % every == every - 1:
            sgd.step()
            sgd.zero_grad()

