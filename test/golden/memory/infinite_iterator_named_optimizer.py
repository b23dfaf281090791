# tpf: target=a10g
"""Steps counted, not epochs: the loop draws from an iterator class of the script's own that
restarts its DataLoader when it runs out, the optimizer class is named by a string and found
with importlib (as config-driven trainers do), and the loss is a masked token mean whose
denominator is kept on the device with `.maximum`. torch 1.13 counts 4,728,064 parameters."""
import importlib

import torch
import torch.nn.functional as F
from torch import nn
from torch.utils.data import DataLoader, Dataset


class Windows(Dataset):
    def __init__(self, n=100_000, length=256, vocab=8192):
        self.n, self.length, self.vocab = n, length, vocab

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        g = torch.Generator().manual_seed(i)
        return torch.randint(0, self.vocab, (self.length + 1,), generator=g)


class Forever:
    def __init__(self, loader):
        self.loader = loader
        self.passes = 0
        self.it = None

    def __iter__(self):
        return self

    def __next__(self):
        if self.it is None:
            self.it = iter(self.loader)
        try:
            return next(self.it)
        except StopIteration:
            self.passes += 1
            self.it = iter(self.loader)
            return next(self.it)


def build_optimizer(spec, params):
    module_name, _, cls_name = spec.rpartition(".")
    cls = getattr(importlib.import_module(module_name), cls_name)
    return cls(params, lr=3e-4, betas=(0.9, 0.95))


def masked_mean_ce(logits, targets, pad=0):
    per_token = F.cross_entropy(logits.flatten(0, 1), targets.flatten(), reduction="none")
    keep = (targets.flatten() != pad).float()
    return (per_token * keep).sum() / keep.sum().maximum(torch.ones_like(keep.sum()))


torch.manual_seed(0)
net = nn.Sequential(nn.Embedding(8192, 256), nn.Linear(256, 1024), nn.GELU(), nn.Linear(1024, 256),
                    nn.Linear(256, 8192)).cuda()
opt = build_optimizer("torch.optim.Adam", net.parameters())
batches = Forever(DataLoader(Windows(), batch_size=24, shuffle=True, num_workers=4, pin_memory=True))
for step, seq in enumerate(batches):
    seq = seq.cuda(non_blocking=True)
    loss = masked_mean_ce(net(seq[:, :-1]), seq[:, 1:])
    loss.backward()
    opt.step()
    opt.zero_grad(set_to_none=True)
    if step == 50_000:
        break
