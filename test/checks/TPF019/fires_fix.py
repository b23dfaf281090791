# TPF019 sampler_without_set_epoch: where the autofix adds set_epoch at the
# top of the epoch loop, and where it does not.
import torch
import torch.nn.functional as F
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler
from tqdm import tqdm

torch.manual_seed(0)


# case: a progress bar over range(): the loop variable is the epoch
def with_progress(model, ds, opt, start, epochs):
    sampler = DistributedSampler(ds, seed=1)  # expect: TPF019
    loader = DataLoader(ds, batch_size=32, sampler=sampler, num_workers=4, pin_memory=True)
    for ep in tqdm(range(start, epochs), desc="epochs"):
        model.train()
        for x, y in loader:
            opt.zero_grad()
            F.cross_entropy(model(x), y).backward()
            opt.step()


# case: a loop over stages, not epoch numbers: no fix
def staged(model, ds, opt, stages):
    sampler = DistributedSampler(ds)  # expect: TPF019
    loader = DataLoader(ds, batch_size=32, sampler=sampler, num_workers=4, pin_memory=True)
    for stage in stages:
        for x, y in loader:
            opt.zero_grad()
            F.cross_entropy(model(x, stage), y).backward()
            opt.step()


# case: the sampler bound in two branches: no fix
def seeded(model, ds, opt, seed):
    if seed is None:
        sampler = DistributedSampler(ds)  # expect: TPF019
    else:
        sampler = DistributedSampler(ds, seed=seed)
    loader = DataLoader(ds, batch_size=32, sampler=sampler, num_workers=4, pin_memory=True)
    for epoch in range(10):
        for x, y in loader:
            opt.zero_grad()
            F.cross_entropy(model(x), y).backward()
            opt.step()


# case: the epoch loop body on the header's line: no fix
def one_line(model, ds, opt):
    sampler = DistributedSampler(ds)  # expect: TPF019
    loader = DataLoader(ds, batch_size=32, sampler=sampler, num_workers=4, pin_memory=True)
    for epoch in range(10): run_epoch(model, loader, opt)


def run_epoch(model, loader, opt):
    for x, y in loader:
        opt.zero_grad()
        F.cross_entropy(model(x), y).backward()
        opt.step()
