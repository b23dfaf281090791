# TPF014 still fires when the branch that clears and steps rejoins the
# normal path: the step there applies nothing and the iteration goes on as
# if it had trained.
import torch
from torch import nn


def update(net, opt, batch, warm):
    opt.zero_grad()
    nn.functional.mse_loss(net(batch), batch).backward()
    if warm:
        opt.zero_grad()  # expect: TPF014
        opt.step()
    else:
        opt.step()
    return float(net(batch).mean())
