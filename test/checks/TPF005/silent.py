# TPF005 ddp_without_distributed_sampler: DDP training that splits the data
# per rank correctly, and loaders that are not the training loader.
import torch
import torch.distributed as dist
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader, Subset
from torch.utils.data.distributed import DistributedSampler

torch.manual_seed(0)


# case: DistributedSampler with set_epoch
def main(model, train_set, val_set, epochs, rank):
    model = DistributedDataParallel(model.to(rank), device_ids=[rank])
    sampler = DistributedSampler(train_set, shuffle=True)
    train_loader = DataLoader(train_set, batch_size=32, sampler=sampler, num_workers=4,
                              pin_memory=True)
    # case: the validation loader: every rank may evaluate everything
    val_loader = DataLoader(val_set, batch_size=128, num_workers=4, pin_memory=True)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for epoch in range(epochs):
        sampler.set_epoch(epoch)
        model.train()
        for x, y in train_loader:
            opt.zero_grad()
            F.cross_entropy(model(x.to(rank)), y.to(rank)).backward()
            opt.step()
        model.eval()
        with torch.no_grad():
            for x, y in val_loader:
                model(x.to(rank))


# case: rank-dependent split of the data, shuffled per rank
def sharded(model, dataset, opt):
    rank, world_size = dist.get_rank(), dist.get_world_size()
    model = DistributedDataParallel(model)
    part = Subset(dataset, range(rank, len(dataset), world_size))
    loader = DataLoader(part, batch_size=32, shuffle=True, num_workers=4, pin_memory=True)
    for x, y in loader:
        opt.zero_grad()
        F.mse_loss(model(x), y).backward()
        opt.step()


# case: sampler=None when not distributed, a DistributedSampler otherwise
def maybe_distributed(args, model, train_set):
    sampler = DistributedSampler(train_set) if args.distributed else None
    if args.distributed:
        model = DistributedDataParallel(model)
    return DataLoader(train_set, batch_size=args.bs, shuffle=sampler is None, sampler=sampler,
                      num_workers=4, pin_memory=True)


# case: loader settings through **kwargs
def from_kwargs(train_set, loader_kwargs):
    return DataLoader(train_set, shuffle=True, **loader_kwargs)
