# Gradient accumulation written with the functional autograd API inside a
# helper: torch.autograd.backward(loss) sums gradients just like
# loss.backward(), so the loss still needs dividing. The fix divides the
# argument, not the `torch.autograd` module.
import torch
from torch import nn


def train_epoch(model, loader, optimizer, accumulate=8):
    criterion = nn.SmoothL1Loss()
    for step, (inputs, targets) in enumerate(loader, start=1):
        torch.autograd.backward(criterion(model(inputs), targets))  # expect: TPF004
        if step % accumulate == 0:
            optimizer.step()
            optimizer.zero_grad(set_to_none=True)

