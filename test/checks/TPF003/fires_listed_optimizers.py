# TPF003 still fires for a listed optimizer that nothing clears: the
# encoder's optimizer steps the sum of every round's encoder gradients
# (reported at the first backward after its step, the next round's).
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
            fit.backward()  # expect: TPF003
            self.head_opts[k].step()
            score = -self.heads[k](torch.cat([self.encs[k](x), ctx], 1)).mean()
            score.backward()
            self.enc_opts[k].step()
