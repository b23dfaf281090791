# TPF008 must fire: the model left in eval mode is the one the optimizer
# steps, reached through `.to()` and a DDP wrapper under other names.
import torch
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel


def build(device):
    base = nn.Sequential(nn.Linear(32, 64), nn.Dropout(0.2), nn.Linear(64, 2))
    return base.to(device)


torch.manual_seed(0)
net = build("cuda")
wrapped = DistributedDataParallel(net)
optim = torch.optim.SGD(net.parameters(), lr=0.1)
teacher = nn.Linear(32, 2)
teacher.eval()

wrapped.train()
for epoch in range(10):
    for x, y in train_batches:
        optim.zero_grad()
        nn.functional.cross_entropy(wrapped(x), y).backward()
        optim.step()
    wrapped.eval()  # expect: TPF008
    with torch.no_grad():
        for x, y in val_batches:
            wrapped(x)
