"""A small image classifier with an auxiliary "is it blurry" head, trained
the wrong way: one bug of each kind tpf-analyze looks for. The same script
written correctly is examples/good_train.py, which has no findings.

    tpf-analyze examples/bad_train.py

Lines marked `# expect: TPFnnn` are reported today (a test checks exactly
those); lines marked `# bug: TPFnnn` are bugs of rules that are registered
but not implemented yet (see `tpf-analyze --list-rules`). TPF013 and
TPF024 need `--target` and the memory estimator.
"""
import argparse
import random

import numpy as np
import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F
from torch.distributed.fsdp import FullyShardedDataParallel as FSDP
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
        h = self.drop(self.features(x))
        probs = F.softmax(self.classes(h), dim=1)  # expect: TPF006
        blur = torch.sigmoid(self.blurry(h))  # expect: TPF007
        return probs, blur


def evaluate(model, loader, device):
    model.eval()
    correct = 0
    for x, y, _ in loader:
        probs, _ = model(x.to(device))  # expect: TPF002 (no torch.no_grad)
        preds = probs.argmax(dim=1).cpu()
        for i in range(len(preds)):
            correct += int(preds[i].item() == y[i].item())  # bug: TPF009 (a sync per element; evaluation, which TPF009 leaves alone)
    return correct / len(loader.dataset)


def warm_up_blur_head(model, loader, device):
    head_opt = torch.optim.SGD(model.blurry.parameters(), lr=0.01)
    for x, _, b in loader:
        _, blur = model(x.to(device))
        loss = F.mse_loss(blur.squeeze(1), b.to(device))
        loss.backward()
        head_opt.zero_grad()  # expect: TPF014 (the step applies cleared gradients)
        head_opt.step()


def blur_error(model, val_loader, device):
    blur_err = 0.0
    with torch.no_grad():
        for x, _, b in val_loader:
            _, blur = model(x.to(device))
            blur_err += F.mse_loss(blur.squeeze(1), b.to(device)).item()
    return blur_err / len(val_loader)


def warmup(model, warm_set, optimizer, device):
    sampler = DistributedSampler(warm_set)  # expect: TPF019 (no sampler.set_epoch(epoch))
    loader = DataLoader(warm_set, batch_size=64, sampler=sampler, num_workers=2, pin_memory=True)
    model.train()
    for epoch in range(2):
        for x, _, b in loader:
            optimizer.zero_grad()
            _, blur = model(x.to(device))
            F.binary_cross_entropy(blur.squeeze(1), b.to(device), reduction="none").backward()  # expect: TPF022 (a loss per sample)
            optimizer.step()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=10)
    parser.add_argument("--lr", type=float, default=3e-4)
    parser.add_argument("--accum", type=int, default=4)
    parser.add_argument("--distributed", action="store_true")
    parser.add_argument("--resume", default="")
    parser.add_argument("--fsdp", action="store_true")
    args = parser.parse_args()

    torch.manual_seed(0)  # expect: TPF010 (random and numpy are used but not seeded)
    device = torch.device("cuda")
    images = torch.randn(1024, 3, 32, 32)
    images.half()  # expect: TPF016 (returns a half copy; images stays float32)
    labels = torch.randint(0, 10, (1024,))
    blurry = torch.from_numpy(np.random.rand(1024) > 0.5).float()
    train_set = TensorDataset(images[:896], labels[:896], blurry[:896])
    val_set = TensorDataset(images[896:], labels[896:], blurry[896:])

    model = Net().to(device)
    if args.resume:
        model.load_state_dict(torch.load(args.resume))  # expect: TPF020 (no weights_only=True)
    if args.distributed:
        dist.init_process_group("nccl")
        model = DDP(model)
    train_loader = DataLoader(train_set, batch_size=64, shuffle=True)  # expect: TPF005, TPF012
    val_loader = DataLoader(val_set, batch_size=256, shuffle=True, num_workers=2, pin_memory=True)  # expect: TPF005, TPF023 (evaluation needs no shuffle)

    blur_criterion = nn.BCEWithLogitsLoss()
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr, weight_decay=1e-4)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=3, gamma=0.5)
    if args.fsdp:
        model = FSDP(model)  # expect: TPF021 (the optimizer holds the unflattened parameters)
    class_weights = torch.ones(10)
    if args.distributed:
        warmup(model, train_set, optimizer, device)

    losses = []
    model.train()
    warm_up_blur_head(model, train_loader, device)
    print(f"blur error {blur_error(model, val_loader, device):.3f}")  # expect: TPF018 (dropout and batch norm still in train mode)
    for epoch in range(args.epochs):
        scheduler.step()  # expect: TPF015 (before this epoch's optimizer steps)
        for step, (x, y, b) in enumerate(train_loader):
            model.to(device)  # in place: a repeat copies nothing (no TPF011)
            w = class_weights.cuda()  # expect: TPF011
            x, y, b = x.to(device), y.to(device), b.to(device)
            if random.random() < 0.5:
                x = torch.flip(x, dims=[3])
            with torch.autocast("cuda"):  # expect: TPF017 (float16 without a GradScaler)
                probs, blur = model(x)
            loss = F.cross_entropy(probs, y, weight=w) + blur_criterion(blur.squeeze(1), b)
            loss.backward()  # expect: TPF003, TPF004 (not divided by args.accum)
            if (step + 1) % args.accum == 0:
                optimizer.step()
            torch.cuda.synchronize()  # expect: TPF009 (a sync every step)
            losses.append(loss)  # expect: TPF001 (keeps every step's graph)
        acc = evaluate(model, val_loader, device)  # expect: TPF008
        print(f"epoch {epoch}: loss {sum(losses) / len(losses):.3f} acc {acc:.3f}")
    torch.save(model.state_dict(), "net.pt")


if __name__ == "__main__":
    main()
