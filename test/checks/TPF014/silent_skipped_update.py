# TPF014: a deliberate skipped update clears the gradients and takes an
# empty step on a branch that then leaves the iteration, beside the normal
# step the backward also reaches. Silent: an update that gives up on a
# batch whose gradient norm is too large (`return`).
# fires_skipped_update.py keeps a clear before a step that rejoins the
# normal path.
import torch
from torch import nn


def guarded_update(net, opt, batch, limit):
    opt.zero_grad()
    nn.functional.mse_loss(net(batch), batch).backward()
    norm = nn.utils.clip_grad_norm_(net.parameters(), 1e9)
    if norm > limit:
        opt.zero_grad()
        opt.step()
        return None
    opt.step()
    return norm
