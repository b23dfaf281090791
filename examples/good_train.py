"""A small image classifier with an auxiliary "is it blurry" head: the
script of examples/bad_train.py written correctly. tpf-analyze reports
nothing here (a test checks that).

    tpf-analyze examples/good_train.py
"""
import argparse
import random

import numpy as np
import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler


class Net(nn.Module):
    def __init__(self, n_classes=10):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 32, 3, padding=1),
            nn.BatchNorm2d(32),
            nn.ReLU(),
            nn.AdaptiveAvgPool2d(1),
            nn.Flatten(),
        )
        self.drop = nn.Dropout(0.2)
        self.classes = nn.Linear(32, n_classes)
        self.blurry = nn.Linear(32, 1)

    def forward(self, x):
        # Logits for both heads: the losses apply softmax / sigmoid themselves.
        h = self.drop(self.features(x))
        return self.classes(h), self.blurry(h)


@torch.no_grad()
def evaluate(model, loader, device):
    model.eval()
    correct = 0
    for x, y, _ in loader:
        logits, _ = model(x.to(device, non_blocking=True))
        correct += (logits.argmax(dim=1).cpu() == y).sum().item()
    model.train()
    return correct / len(loader.dataset)


def warm_up_blur_head(model, loader, val_loader, device):
    head_opt = torch.optim.SGD(model.blurry.parameters(), lr=0.01)
    for x, _, b in loader:
        head_opt.zero_grad(set_to_none=True)
        _, blur = model(x.to(device))
        loss = F.binary_cross_entropy_with_logits(blur.squeeze(1), b.to(device))
        loss.backward()
        head_opt.step()
    model.eval()
    blur_err = 0.0
    with torch.no_grad():
        for x, _, b in val_loader:
            _, blur = model(x.to(device))
            blur_err += F.binary_cross_entropy_with_logits(blur.squeeze(1), b.to(device)).item()
    model.train()
    return blur_err / len(val_loader)


def seed_everything(seed):
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=10)
    parser.add_argument("--lr", type=float, default=3e-4)
    parser.add_argument("--accum", type=int, default=4)
    parser.add_argument("--distributed", action="store_true")
    args = parser.parse_args()

    seed_everything(0)
    device = torch.device("cuda")
    images = torch.randn(1024, 3, 32, 32)
    labels = torch.randint(0, 10, (1024,))
    blurry = torch.from_numpy(np.random.rand(1024) > 0.5).float()
    train_set = TensorDataset(images[:896], labels[:896], blurry[:896])
    val_set = TensorDataset(images[896:], labels[896:], blurry[896:])

    model = Net().to(device)
    sampler = None
    if args.distributed:
        dist.init_process_group("nccl")
        model = DDP(model)
        sampler = DistributedSampler(train_set)
    train_loader = DataLoader(train_set, batch_size=64, shuffle=sampler is None, sampler=sampler,
                              num_workers=4, pin_memory=True)
    val_loader = DataLoader(val_set, batch_size=256, num_workers=2, pin_memory=True)

    blur_criterion = nn.BCEWithLogitsLoss()
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=3, gamma=0.5)
    w = torch.ones(10).cuda()

    losses = []
    model.train()
    warm_up_blur_head(model, train_loader, val_loader, device)
    for epoch in range(args.epochs):
        if sampler is not None:
            sampler.set_epoch(epoch)
        model.train()
        optimizer.zero_grad(set_to_none=True)
        for step, (x, y, b) in enumerate(train_loader):
            x, y, b = x.to(device), y.to(device), b.to(device)
            if random.random() < 0.5:
                x = torch.flip(x, dims=[3])
            with torch.autocast("cuda", dtype=torch.bfloat16):
                logits, blur = model(x)
            loss = F.cross_entropy(logits, y, weight=w) + blur_criterion(blur.squeeze(1), b)
            (loss / args.accum).backward()
            if (step + 1) % args.accum == 0:
                optimizer.step()
                optimizer.zero_grad(set_to_none=True)
            losses.append(loss.item())
        scheduler.step()
        acc = evaluate(model, val_loader, device)
        print(f"epoch {epoch}: loss {sum(losses) / len(losses):.3f} acc {acc:.3f}")
    torch.save(model.state_dict(), "net.pt")


if __name__ == "__main__":
    main()
