# TPF019 sampler_without_set_epoch: a shuffling DistributedSampler whose
# epoch is never advanced, so every epoch has the same order.
import torch
import torch.nn.functional as F
from torch.utils.data import BatchSampler, DataLoader
from torch.utils.data.distributed import DistributedSampler

torch.manual_seed(0)


# case: the textbook mistake: sampler given to the loader, no set_epoch
def main(model, train_set, epochs):
    sampler = DistributedSampler(train_set)  # expect: TPF019
    loader = DataLoader(train_set, batch_size=32, sampler=sampler, num_workers=4, pin_memory=True)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for epoch in range(epochs):
        for x, y in loader:
            opt.zero_grad()
            F.cross_entropy(model(x.cuda()), y.cuda()).backward()
            opt.step()


# case: shuffle=True spelled out, enumerate over the loader
def train_explicit(model, train_set, opt, rank, world):
    train_sampler = DistributedSampler(train_set, num_replicas=world, rank=rank, shuffle=True)  # expect: TPF019
    train_loader = DataLoader(train_set, batch_size=64, sampler=train_sampler, num_workers=4, pin_memory=True)
    for epoch in range(100):
        for step, (x, y) in enumerate(train_loader):
            opt.zero_grad()
            F.mse_loss(model(x), y).backward()
            opt.step()


# case: the epoch loop calls a training helper of the file with the loader
def train_one_epoch(model, loader, opt):
    for x, y in loader:
        opt.zero_grad()
        F.cross_entropy(model(x), y).backward()
        opt.step()


def run(model, ds, opt, epochs):
    s = DistributedSampler(ds)  # expect: TPF019
    dl = DataLoader(ds, batch_size=16, sampler=s, num_workers=2, pin_memory=True)
    for epoch in range(epochs):
        train_one_epoch(model, dl, opt)


# case: inside a BatchSampler given as batch_sampler
def run_batches(model, ds, opt):
    inner = DistributedSampler(ds, drop_last=True)  # expect: TPF019
    batches = BatchSampler(inner, batch_size=8, drop_last=True)
    dl = DataLoader(ds, batch_sampler=batches, num_workers=2, pin_memory=True)
    epoch = 0
    while epoch < 10:
        for x, y in dl:
            opt.zero_grad()
            F.cross_entropy(model(x), y).backward()
            opt.step()
        epoch += 1


# case: a sampler that is None when not distributed
def run_maybe(model, ds, opt, distributed):
    sampler = DistributedSampler(ds) if distributed else None  # expect: TPF019
    dl = DataLoader(ds, batch_size=16, sampler=sampler, shuffle=sampler is None, num_workers=2, pin_memory=True)
    for epoch in range(5):
        for x, y in dl:
            opt.zero_grad()
            F.cross_entropy(model(x), y).backward()
            opt.step()
