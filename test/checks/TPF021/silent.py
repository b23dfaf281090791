# TPF021 optimizer_before_model_rebind: rebindings that keep the parameters,
# or optimizers built after them.
import torch
import torch.nn as nn
import torch.nn.functional as F
import torchvision
from torch.distributed.fsdp import FullyShardedDataParallel as FSDP
from torch.nn.parallel import DistributedDataParallel as DDP


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 2)

    def forward(self, x):
        return self.fc(x)


class WithHead(nn.Module):
    def __init__(self, body):
        super().__init__()
        self.body = body

    def forward(self, x):
        return self.body(x)


# case: DDP and torch.compile after the optimizer share the parameters
def train_ddp(loader, rank):
    model = Net().to(rank)
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-4)
    model = DDP(model, device_ids=[rank])
    model = torch.compile(model)
    for x, y in loader:
        optimizer.zero_grad()
        F.cross_entropy(model(x), y).backward()
        optimizer.step()


# case: moves and casts return the same module
def train_moved(loader):
    model = Net()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    model = model.cuda()
    model = model.half()
    model = model.to("cuda")
    for x, y in loader:
        opt.zero_grad()
        F.cross_entropy(model(x.cuda().half()), y.cuda()).backward()
        opt.step()


# case: FSDP first, then the optimizer
def train_fsdp(loader):
    model = FSDP(Net())
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-4)
    for x, y in loader:
        optimizer.zero_grad()
        F.cross_entropy(model(x), y).backward()
        optimizer.step()


# case: a new model per fold, with a new optimizer each time
def cross_validate(folds):
    model = Net()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for loader in folds:
        model = Net()
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        for x, y in loader:
            opt.zero_grad()
            F.cross_entropy(model(x), y).backward()
            opt.step()


# case: model and optimizer built only inside the fold loop (the next fold's rebinding is followed by its own optimizer)
def cross_validate_inside(folds, accelerator):
    for train_loader in folds:
        model = torchvision.models.resnet18(num_classes=2)
        model = model.to(accelerator.device)
        optimizer = torch.optim.AdamW(params=model.parameters(), lr=1e-3)
        model, optimizer = accelerator.prepare(model, optimizer)
        for batch in train_loader:
            accelerator.backward(F.cross_entropy(model(batch[0]), batch[1]))
            optimizer.step()
            optimizer.zero_grad()


# case: a wrapper built from the old model shares its parameters
def train_wrapped(loader):
    model = Net()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    model = WithHead(model)
    for x, y in loader:
        opt.zero_grad()
        F.cross_entropy(model(x), y).backward()
        opt.step()


# case: a fresh model for evaluation after training
def train_then_eval(loader, path):
    model = Net()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for x, y in loader:
        opt.zero_grad()
        F.cross_entropy(model(x), y).backward()
        opt.step()
    model = Net()
    model.load_state_dict(torch.load(path, weights_only=True))
    with torch.no_grad():
        return model(next(iter(loader))[0])
