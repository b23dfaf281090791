# The loss is imported by name and nothing in the file binds BCELoss (no
# `import torch`, no `from torch import nn`): the finding stands, but no
# fix is offered, since any spelling of the sibling would be an unbound name.
from torch import manual_seed
from torch.nn import BCEWithLogitsLoss, Linear
from torch.optim import SGD

manual_seed(0)
head = Linear(8, 1)
loss_fn = BCEWithLogitsLoss()
opt = SGD(head.parameters(), lr=0.01)
for x, y in loader:
    opt.zero_grad()
    loss_fn(head(x).sigmoid(), y).backward()  # expect: TPF007
    opt.step()
