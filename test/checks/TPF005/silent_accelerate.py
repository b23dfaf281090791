# TPF005 ddp_without_distributed_sampler: accelerate prepares the loader
# (it shards it per process), even where the script wraps DDP itself.
import torch
import torch.nn.functional as F
from accelerate import Accelerator
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader

torch.manual_seed(0)


# case: accelerator.prepare(model, optimizer, loader)
def main(model, dataset, lr=1e-4):
    accelerator = Accelerator()
    loader = DataLoader(dataset, batch_size=32, shuffle=True, num_workers=4, pin_memory=True)
    optimizer = torch.optim.AdamW(model.parameters(), lr=lr)
    model, optimizer, loader = accelerator.prepare(model, optimizer, loader)
    for x, y in loader:
        optimizer.zero_grad()
        accelerator.backward(F.cross_entropy(model(x), y))
        optimizer.step()


def unused_wrap(model):
    return DDP(model)
