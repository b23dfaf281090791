# TPF019 sampler_without_set_epoch: the sampler comes from a helper or a
# variable naming its class, and the loader is started anew by the training
# code (iter() when next() runs out, a generator looping over it forever, a
# training function it is handed to once): every pass has the same order.
import torch
import torch.nn.functional as F
from torch.utils.data import DataLoader, RandomSampler
from torch.utils.data.distributed import DistributedSampler

torch.manual_seed(0)


# case: the sampler class chosen by rank; train() restarts the iterator when it runs out
def fit(model, opt, loader, steps):
    batches = iter(loader)
    for epoch in range(10):
        for step in range(steps):
            try:
                x, y = next(batches)
            except StopIteration:
                batches = iter(loader)
                x, y = next(batches)
            opt.zero_grad()
            F.cross_entropy(model(x), y).backward()
            opt.step()


def main_alias(model, opt, dataset, local_rank):
    sampler_cls = RandomSampler if local_rank == -1 else DistributedSampler
    loader = DataLoader(dataset, sampler=sampler_cls(dataset), batch_size=64, num_workers=4, drop_last=True)  # expect: TPF019
    fit(model, opt, loader, 1000)


# case: a helper builds the sampler (shuffle passed through); a generator re-iterates the loader forever
def make_sampler(dataset, shuffle, distributed):
    if distributed:
        return DistributedSampler(dataset, shuffle=shuffle)  # expect: TPF019
    return RandomSampler(dataset)


def endless(loader):
    while True:
        for batch in loader:
            yield batch


def train_gan(model, opt, loader, iters):
    loader = endless(loader)
    for i in range(iters):
        x, y = next(loader)
        opt.zero_grad()
        F.mse_loss(model(x), y).backward()
        opt.step()


def main_helper(model, opt, dataset, distributed):
    loader = DataLoader(
        dataset, batch_size=16, num_workers=4, sampler=make_sampler(dataset, shuffle=True, distributed=distributed)
    )
    train_gan(model, opt, loader, 100000)


# case: the loader is handed once to a training function with its own epoch loop
def run_epochs(model, opt, loader, epochs):
    for epoch in range(epochs):
        for x, y in loader:
            opt.zero_grad()
            F.cross_entropy(model(x), y).backward()
            opt.step()


def main_once(model, opt, dataset):
    sampler = DistributedSampler(dataset)  # expect: TPF019
    loader = DataLoader(dataset, batch_size=32, sampler=sampler, num_workers=4)
    run_epochs(model, opt, loader, 90)


# case: a step-bounded while loop restarting the iterator with __iter__()
def main_steps(model, opt, dataset, max_steps):
    sampler = DistributedSampler(dataset, shuffle=True)  # expect: TPF019
    loader = DataLoader(dataset, batch_size=32, sampler=sampler, num_workers=4)
    it = loader.__iter__()
    step = 0
    while step < max_steps:
        try:
            x, y = next(it)
        except StopIteration:
            it = loader.__iter__()
            continue
        opt.zero_grad()
        F.cross_entropy(model(x), y).backward()
        opt.step()
        step += 1
