# TPF017 must stay silent: Accelerate scales the loss itself.
import torch
from accelerate import Accelerator


# case: fp16 autocast under Accelerate (its backward scales)
def train(model, loader, optimizer):
    accelerator = Accelerator(mixed_precision="fp16")
    model, optimizer, loader = accelerator.prepare(model, optimizer, loader)
    for x, y in loader:
        with torch.autocast("cuda"):
            loss = model(x, y)
        accelerator.backward(loss)
        optimizer.step()
        optimizer.zero_grad()
