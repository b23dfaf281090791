# TPF021 optimizer_before_model_rebind: the optimizer keeps the parameters
# of a model the name no longer denotes, and is stepped anyway.
import copy

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.distributed.fsdp import FullyShardedDataParallel as FSDP
from torch.distributed.fsdp import fully_shard


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 2)

    def forward(self, x):
        return self.fc(x)


# case: FSDP wraps the model after the optimizer was built
def train_fsdp(loader, rank):
    model = Net().to(rank)
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-4)
    model = FSDP(model)  # expect: TPF021
    for x, y in loader:
        optimizer.zero_grad()
        F.cross_entropy(model(x), y).backward()
        optimizer.step()


# case: the model is built again after the optimizer
def train_rebuilt(loader):
    model = Net()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    model = Net().cuda()  # expect: TPF021
    for x, y in loader:
        opt.zero_grad()
        F.cross_entropy(model(x.cuda()), y.cuda()).backward()
        opt.step()


# case: a deep copy trained with the original's optimizer
def train_copy(model, loader):
    optimizer = torch.optim.Adam(model.parameters())
    model = copy.deepcopy(model)  # expect: TPF021
    for x, y in loader:
        optimizer.zero_grad()
        F.mse_loss(model(x), y).backward()
        optimizer.step()


# case: fully_shard replaces the parameters in place after the optimizer
def train_fully_shard(model, loader):
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
    fully_shard(model)  # expect: TPF021
    for x, y in loader:
        optimizer.zero_grad()
        F.cross_entropy(model(x), y).backward()
        optimizer.step()


# case: a torch.nn model replaces the first one on one path, with AMP
def train_choice(loader, small):
    model = nn.Linear(8, 2)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    scaler = torch.amp.GradScaler()
    if small:
        model = nn.Linear(8, 2)  # expect: TPF021
    for x, y in loader:
        optimizer.zero_grad()
        scaler.scale(F.cross_entropy(model(x), y)).backward()
        scaler.step(optimizer)
        scaler.update()
