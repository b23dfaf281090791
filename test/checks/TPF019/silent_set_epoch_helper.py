# TPF019 sampler_without_set_epoch: the epoch is advanced in a helper,
# through loader.sampler (any set_epoch call in the file counts).
import torch
import torch.nn.functional as F
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler

torch.manual_seed(0)


def train_epoch(model, loader, opt, epoch):
    loader.sampler.set_epoch(epoch)
    for x, y in loader:
        opt.zero_grad()
        F.cross_entropy(model(x), y).backward()
        opt.step()


# case: the helper advances the epoch through loader.sampler
def main(model, ds, opt):
    dl = DataLoader(ds, batch_size=32, sampler=DistributedSampler(ds), num_workers=4, pin_memory=True)
    for epoch in range(10):
        train_epoch(model, dl, opt, epoch)


