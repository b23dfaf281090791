# TPF004 must fire: accumulation written as an inner loop of micro-steps,
# one optimizer step after it, and the loss is not divided by their count.
import torch
import torch.nn.functional as F


def train(model, optimizer, next_batch, micro_steps, iters):
    torch.manual_seed(0)
    for it in range(iters):
        for micro in range(micro_steps):
            x, y = next_batch()
            loss = F.cross_entropy(model(x), y)
            loss.backward()  # expect: TPF004
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)


def train_divided(model, optimizer, next_batch, micro_steps, iters):
    for it in range(iters):
        for micro in range(micro_steps):
            x, y = next_batch()
            (F.cross_entropy(model(x), y) / micro_steps).backward()
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)


def train_single(model, optimizer, next_batch, iters):
    for it in range(iters):
        for micro in range(1):
            x, y = next_batch()
            F.cross_entropy(model(x), y).backward()
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
