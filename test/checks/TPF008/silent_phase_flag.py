# TPF008 silent: one episode function serves both phases; eval() and the
# optimizer step are keyed by the same `train` flag, so no run goes from
# the eval() to the step (the flag does not change within a call).
import torch
import torch.nn as nn

torch.manual_seed(0)


# case: `if train: model.train() else: model.eval()` ... `if train: step()`
def episode(model, optimiser, x, y, train):
    if train:
        model.train()
        optimiser.zero_grad()
    else:
        model.eval()
    loss = nn.functional.cross_entropy(model(x), y)
    if train:
        loss.backward()
        optimiser.step()
    return loss.item()

