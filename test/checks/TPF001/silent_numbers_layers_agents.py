# TPF001 must stay silent on three stores that keep no graph across steps:
# Python numbers made by arithmetic on `.item()` (with an `int`-annotated
# parameter, a parameter whose default is a number, a tensor's size); a
# decoder's per-layer states, local to one forward (its base class comes
# from a library the analysis does not model); one loss per agent of one
# update, each backwarded and stepped by that agent's own optimizer.
import torch
import torch.nn.functional as F
from fairseq.models import FairseqIncrementalDecoder

net = torch.nn.Linear(8, 2)
opt = torch.optim.SGD(net.parameters(), lr=0.1)


def epoch(loader, accum: int, weight=0.5):
    history = []
    running = 0.0
    per_row = 0.0
    for x, y in loader:
        loss = F.mse_loss(net(x), y) / accum
        loss.backward()
        opt.step()
        opt.zero_grad()
        shown = loss.item() * accum
        history.append(shown)
        running += loss.item() / weight
        per_row += loss.item() / x.size(0)
    return history, running, per_row


class Stage(torch.nn.Module):
    def __init__(self, width):
        super().__init__()
        self.mix = torch.nn.Linear(width, width)

    def forward(self, h, mask):
        return torch.tanh(self.mix(h)), mask


class StackDecoder(FairseqIncrementalDecoder):
    def __init__(self, dictionary, width, depth):
        super().__init__(dictionary)
        self.embed = torch.nn.Embedding(len(dictionary), width)
        self.stages = torch.nn.ModuleList([])
        self.stages.extend([Stage(width) for _ in range(depth)])

    def extract(self, tokens):
        h = self.embed(tokens)
        states = [h]
        for stage in self.stages:
            h, _ = stage(h, None)
            states.append(h)
        return h


class Team:
    def __init__(self, critics):
        self.critics = critics
        self.optims = [torch.optim.Adam(c.parameters()) for c in critics]

    def learn(self, obs, target):
        critic_losses = []
        for k in range(len(self.critics)):
            self.optims[k].zero_grad()
            value_loss = F.smooth_l1_loss(self.critics[k](obs), target)
            value_loss.backward()
            self.optims[k].step()
            critic_losses.append(value_loss)
        return critic_losses
