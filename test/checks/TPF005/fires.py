# TPF005 ddp_without_distributed_sampler: DDP training whose training
# loader has no DistributedSampler.
import os

import torch
import torch.distributed as dist
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader

torch.manual_seed(0)


# case: the textbook mistake: DDP wrap, shuffled loader
def main(model, dataset, epochs):
    dist.init_process_group("nccl")
    local_rank = int(os.environ["LOCAL_RANK"])
    model = DDP(model.cuda(local_rank), device_ids=[local_rank])
    loader = DataLoader(dataset, batch_size=32, shuffle=True, num_workers=4, pin_memory=True)  # expect: TPF005
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for epoch in range(epochs):
        for x, y in loader:
            opt.zero_grad()
            F.cross_entropy(model(x.cuda()), y.cuda()).backward()
            opt.step()


# case: a loader built in a helper, shuffled
def build_train_loader(train_set, batch_size):
    return DataLoader(train_set, batch_size, True, num_workers=8, pin_memory=True)  # expect: TPF005


# case: not shuffled, but it is the loader the training loop iterates
def train_epoch(ddp_model, train_set, optimizer):
    train_loader = DataLoader(train_set, batch_size=64, num_workers=4, pin_memory=True)  # expect: TPF005
    for step, batch in enumerate(train_loader):
        optimizer.zero_grad(set_to_none=True)
        ddp_model(**batch).loss.backward()
        optimizer.step()


# case: a tqdm loop over an unshuffled loader with a helper step
def step_fn(model, batch, optimizer):
    optimizer.zero_grad()
    loss = model(batch).mean()
    loss.backward()
    optimizer.step()


def run(model, data, optimizer):
    from tqdm import tqdm
    dl = DataLoader(data, batch_size=16, drop_last=True, num_workers=2, pin_memory=True)  # expect: TPF005
    for batch in tqdm(dl):
        step_fn(model, batch.cuda(), optimizer)
