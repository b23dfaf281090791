# TPF006 must fire: softmax written out as the exponential of a
# log-softmax, then passed to CrossEntropyLoss (no automatic fix: which
# call to drop depends on the code around it).
import torch
import torch.nn as nn


class Scorer(nn.Module):
    def __init__(self, d, k):
        super().__init__()
        self.lin = nn.Linear(d, k)
        self.norm = nn.LogSoftmax(dim=1)

    def forward(self, h):
        return self.norm(self.lin(h))


torch.manual_seed(0)
scorer = Scorer(32, 6)
ce = nn.CrossEntropyLoss()
opt = torch.optim.Adam(scorer.parameters())
for h, y in pairs:
    opt.zero_grad()
    p = scorer(h).exp()  # expect: TPF006
    ce(p, y).backward()
    opt.step()
