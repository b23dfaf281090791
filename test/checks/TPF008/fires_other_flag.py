# TPF008 fires: the eval() and the step are keyed by two different flags,
# so a run with `evaluate` and `update` both set trains in eval mode.
import torch
import torch.nn as nn

torch.manual_seed(0)


# case: eval() under one flag, the step under another
def episode(model, optimiser, x, y, evaluate, update):
    if evaluate:
        model.eval()  # expect: TPF008
    loss = nn.functional.cross_entropy(model(x), y)
    if update:
        optimiser.zero_grad()
        loss.backward()
        optimiser.step()
    return loss.item()
