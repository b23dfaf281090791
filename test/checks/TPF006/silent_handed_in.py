# TPF006 must stay silent: the criterion handed to the helper may be
# either loss (it is not known to be CrossEntropyLoss), and a model whose
# forward ends in log_softmax is trained with NLLLoss.
import sys

import torch
import torch.nn as nn


class LogProbs(nn.Module):
    def __init__(self):
        super().__init__()
        self.out = nn.Linear(64, 5)

    def forward(self, h):
        return torch.log_softmax(self.out(h), dim=-1)


def fit(model, criterion, optimizer, data):
    for h, y in data:
        optimizer.zero_grad()
        criterion(model(h), y).backward()
        optimizer.step()


torch.manual_seed(0)
model = LogProbs()
optimizer = torch.optim.Adam(model.parameters())
criterion = nn.NLLLoss() if "--nll" in sys.argv else nn.CrossEntropyLoss()
fit(model, criterion, optimizer, batches)
fit(model, nn.NLLLoss(), optimizer, more_batches)
