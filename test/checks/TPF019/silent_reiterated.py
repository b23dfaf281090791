# TPF019 sampler_without_set_epoch: helpers and re-iteration that are fine:
# the helper's sampler does not shuffle, or its shuffle is not known; the
# loader is iterated once; the helper returns no DistributedSampler.
import torch
import torch.nn.functional as F
from torch.utils.data import DataLoader, RandomSampler, SequentialSampler
from torch.utils.data.distributed import DistributedSampler

torch.manual_seed(0)


def make_sampler(dataset, shuffle, distributed):
    if distributed:
        return DistributedSampler(dataset, shuffle=shuffle)
    return RandomSampler(dataset) if shuffle else SequentialSampler(dataset)


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


# case: the helper is told not to shuffle
def main_no_shuffle(model, opt, dataset, distributed):
    loader = DataLoader(
        dataset, batch_size=16, num_workers=4, sampler=make_sampler(dataset, shuffle=False, distributed=distributed)
    )
    train_gan(model, opt, loader, 100000)


# case: the helper's shuffle comes from the command line: not known here
def main_flag(model, opt, dataset, args):
    loader = DataLoader(
        dataset, batch_size=16, num_workers=4, sampler=make_sampler(dataset, args.shuffle, args.distributed)
    )
    train_gan(model, opt, loader, 100000)


# case: one pass: the generator stops after the loader is exhausted once
def one_pass(loader):
    for batch in loader:
        yield batch


def main_one_pass(model, opt, dataset):
    sampler = DistributedSampler(dataset)
    loader = DataLoader(dataset, batch_size=32, sampler=sampler, num_workers=4)
    batches = one_pass(loader)
    for x, y in batches:
        opt.zero_grad()
        F.cross_entropy(model(x), y).backward()
        opt.step()


# case: the iterator is made once, before the step loop (a single pass)
def main_iter_once(model, opt, dataset, steps):
    sampler = DistributedSampler(dataset)
    loader = DataLoader(dataset, batch_size=32, sampler=sampler, num_workers=4)
    it = iter(loader)
    for step in range(steps):
        x, y = next(it)
        opt.zero_grad()
        F.cross_entropy(model(x), y).backward()
        opt.step()
