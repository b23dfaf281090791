# TPF012 dataloader_without_workers: CUDA training scripts whose loaders are
# configured well, or whose settings the file does not fix.
import torch
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)


# case: workers and pinned memory
def good(model, dataset, optimizer):
    loader = DataLoader(dataset, batch_size=64, shuffle=True, num_workers=4, pin_memory=True)
    for x, y in loader:
        x, y = x.cuda(non_blocking=True), y.cuda(non_blocking=True)
        optimizer.zero_grad()
        F.cross_entropy(model(x), y).backward()
        optimizer.step()


# case: settings passed through a kwargs dict
def from_kwargs(dataset, args):
    loader_kwargs = {"num_workers": args.workers, "pin_memory": True}
    return DataLoader(dataset, batch_size=args.batch_size, shuffle=True, **loader_kwargs)


# case: both values come from the command line
def from_args(dataset, args):
    return DataLoader(dataset, batch_size=args.batch_size, num_workers=args.workers,
                      pin_memory=args.pin_memory)


# case: the whole dataset already lives on the GPU
def on_gpu(images, labels, model, optimizer):
    ds = TensorDataset(images.cuda(), labels.to("cuda"))
    loader = DataLoader(ds, batch_size=256, shuffle=True)
    for x, y in loader:
        optimizer.zero_grad()
        F.cross_entropy(model(x), y).backward()
        optimizer.step()
