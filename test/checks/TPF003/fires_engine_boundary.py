# TPF003 still fires when the stepped object is a torch optimizer: asking a
# different object about accumulation boundaries makes no engine of it.
import torch
from torch import nn


def backprop(loss):
    loss.backward()


def accumulate(batches, model, schedule, every):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for i, batch in enumerate(batches):
        loss = nn.functional.mse_loss(model(batch), batch)
        backprop(loss)  # expect: TPF003
        if schedule.is_gradient_accumulation_boundary():
            opt.step()
