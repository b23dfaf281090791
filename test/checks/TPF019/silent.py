# TPF019 sampler_without_set_epoch: correct code that must stay silent.
import torch
import torch.nn.functional as F
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler

torch.manual_seed(0)


# case: set_epoch at the top of the epoch loop
def main(model, train_set, epochs):
    sampler = DistributedSampler(train_set)
    loader = DataLoader(train_set, batch_size=32, sampler=sampler, num_workers=4, pin_memory=True)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for epoch in range(epochs):
        sampler.set_epoch(epoch)
        for x, y in loader:
            opt.zero_grad()
            F.cross_entropy(model(x), y).backward()
            opt.step()


# case: shuffle=False: the order is meant to stay
def no_shuffle(model, ds, opt):
    sampler = DistributedSampler(ds, shuffle=False)
    dl = DataLoader(ds, batch_size=32, sampler=sampler, num_workers=4, pin_memory=True)
    for epoch in range(10):
        for x, y in dl:
            opt.zero_grad()
            F.cross_entropy(model(x), y).backward()
            opt.step()


# case: a single pass over the loader, no epoch loop
def one_pass(model, ds, opt):
    sampler = DistributedSampler(ds)
    dl = DataLoader(ds, batch_size=32, sampler=sampler, num_workers=4, pin_memory=True)
    for x, y in dl:
        opt.zero_grad()
        F.cross_entropy(model(x), y).backward()
        opt.step()


# case: a shuffle the file does not fix
def configured(model, ds, opt, args):
    sampler = DistributedSampler(ds, shuffle=args.shuffle)
    dl = DataLoader(ds, batch_size=32, sampler=sampler, num_workers=4, pin_memory=True)
    for epoch in range(10):
        for x, y in dl:
            opt.zero_grad()
            F.cross_entropy(model(x), y).backward()
            opt.step()


# case: evaluation loader: the loop over it does not train
def evaluate(model, val_set):
    sampler = DistributedSampler(val_set)
    dl = DataLoader(val_set, batch_size=32, sampler=sampler, num_workers=4, pin_memory=True)
    with torch.no_grad():
        for epoch in range(3):
            for x, y in dl:
                print(model(x).argmax(1).eq(y).sum())
