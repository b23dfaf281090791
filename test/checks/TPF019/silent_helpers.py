# TPF019 sampler_without_set_epoch: loaders handed to code that calls
# set_epoch itself, or to a caller we do not follow.
import torch
import torch.nn.functional as F
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler

torch.manual_seed(0)


# case: the loader goes to a trainer of another package
def with_trainer(model, ds, trainer):
    dl = DataLoader(ds, batch_size=32, sampler=DistributedSampler(ds), num_workers=4, pin_memory=True)
    for epoch in range(10):
        trainer.fit(model, dl)


# case: accelerate prepares the loader
def with_accelerate(model, ds, opt, accelerator):
    dl = DataLoader(ds, batch_size=32, sampler=DistributedSampler(ds), num_workers=4, pin_memory=True)
    model, opt, dl = accelerator.prepare(model, opt, dl)
    for epoch in range(10):
        for x, y in dl:
            opt.zero_grad()
            accelerator.backward(F.cross_entropy(model(x), y))
            opt.step()


# case: the loader and sampler are returned to a caller we do not follow
def build(ds):
    sampler = DistributedSampler(ds)
    return DataLoader(ds, batch_size=32, sampler=sampler, num_workers=4, pin_memory=True), sampler
