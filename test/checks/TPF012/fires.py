# TPF012 dataloader_without_workers: a CUDA training script whose loaders
# load in the training process or without pinned memory.
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


# case: the defaults: no workers, no pinned memory
def plain(model, dataset, optimizer):
    loader = DataLoader(dataset, batch_size=64, shuffle=True)  # expect: TPF012
    for x, y in loader:
        x, y = x.to(device), y.to(device)
        optimizer.zero_grad()
        F.cross_entropy(model(x), y).backward()
        optimizer.step()


# case: num_workers=0 written out, from an argparse script
def from_args():
    parser = argparse.ArgumentParser()
    parser.add_argument("--batch-size", type=int, default=128)
    args = parser.parse_args()
    data = TensorDataset(torch.randn(512, 8), torch.randint(0, 2, (512,)))
    train_dl = DataLoader(data, args.batch_size, True, num_workers=0, pin_memory=True)  # expect: TPF012
    net = nn.Linear(8, 2).cuda()
    opt = torch.optim.SGD(net.parameters(), lr=0.1)
    for epoch in range(3):
        for xb, yb in train_dl:
            opt.zero_grad()
            loss = F.cross_entropy(net(xb.cuda(non_blocking=True)), yb.cuda(non_blocking=True))
            loss.backward()
            opt.step()


# case: workers from the command line, but no pinned memory
def make_loader(dataset, args):
    return DataLoader(dataset, batch_size=args.bs, shuffle=True, num_workers=args.workers)  # expect: TPF012


# case: pinning turned off explicitly
def build_loaders(train_set, val_set, workers=8):
    train = DataLoader(train_set, batch_size=32, shuffle=True, num_workers=workers,  # expect: TPF012
                       pin_memory=False)
    val = DataLoader(val_set, batch_size=64, num_workers=workers, pin_memory=True)
    return train, val


# case: a loader inside a tqdm training loop helper
def fit(model, dataset, optimizer, epochs):
    from tqdm import tqdm
    loader = DataLoader(dataset, batch_size=16, drop_last=True)  # expect: TPF012
    model.train()
    for epoch in range(epochs):
        for batch in tqdm(loader, desc=f"epoch {epoch}"):
            inputs, targets = (t.to(device) for t in batch)
            optimizer.zero_grad(set_to_none=True)
            F.mse_loss(model(inputs), targets).backward()
            optimizer.step()
