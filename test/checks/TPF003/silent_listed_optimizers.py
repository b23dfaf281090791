# TPF003: optimizers kept in lists (`self.enc_opts[k]`, `self.head_opts[k]`)
# have no access key; two of them are not one optimizer because neither has
# a name. Silent: per tower, the encoder's backward also fills the head's
# gradients, but the head's own zero_grad comes before its next backward.
# fires_listed_optimizers.py keeps a tower whose encoder is never cleared.
import torch
from torch import nn


class Towers:
    def __init__(self, count, width):
        self.heads = [nn.Linear(2 * width, 1) for _ in range(count)]
        self.encs = [nn.Linear(width, width) for _ in range(count)]
        self.head_opts = [torch.optim.SGD(h.parameters(), lr=0.01) for h in self.heads]
        self.enc_opts = [torch.optim.SGD(e.parameters(), lr=0.01) for e in self.encs]

    def round(self, shards):
        for k in range(len(self.heads)):
            x, ctx, y = shards[k]
            self.head_opts[k].zero_grad()
            fit = nn.functional.mse_loss(self.heads[k](torch.cat([x, ctx], 1)).squeeze(1), y)
            fit.backward()
            self.head_opts[k].step()
            self.enc_opts[k].zero_grad()
            score = -self.heads[k](torch.cat([self.encs[k](x), ctx], 1)).mean()
            score.backward()
            self.enc_opts[k].step()
