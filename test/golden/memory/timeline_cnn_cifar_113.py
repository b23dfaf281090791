# tpf: target=t4 torch-version=1.13 timeline
"""Small CNN for CIFAR-10: three conv-BN-ReLU-pool stages and a linear head.

Plain SGD (no momentum), so the optimizer keeps no state. Fixture for
tools/measure_memory.py; see test/memory/README.md for the convention.
"""
import argparse
import types

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

BATCH_SIZE = 32
IMAGE_SIZE = 32
NUM_CLASSES = 10
CHANNELS = (32, 64, 128)


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--batch-size", type=int, default=BATCH_SIZE)
    p.add_argument("--lr", type=float, default=0.05)
    p.add_argument("--epochs", type=int, default=30)
    p.add_argument("--max-steps", type=int, default=None)
    return p.parse_args(argv)


class ConvNet(nn.Module):
    def __init__(self, channels=CHANNELS, num_classes=NUM_CLASSES):
        super().__init__()
        self.conv1 = nn.Conv2d(3, channels[0], kernel_size=3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(channels[0])
        self.conv2 = nn.Conv2d(channels[0], channels[1], kernel_size=3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(channels[1])
        self.conv3 = nn.Conv2d(channels[1], channels[2], kernel_size=3, padding=1, bias=False)
        self.bn3 = nn.BatchNorm2d(channels[2])
        self.pool = nn.MaxPool2d(2)
        self.fc = nn.Linear(channels[2] * (IMAGE_SIZE // 8) ** 2, num_classes)

    def forward(self, x):
        x = self.pool(F.relu(self.bn1(self.conv1(x))))
        x = self.pool(F.relu(self.bn2(self.conv2(x))))
        x = self.pool(F.relu(self.bn3(self.conv3(x))))
        return self.fc(torch.flatten(x, 1))


def build(args):
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model = ConvNet().to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr)
    data = TensorDataset(torch.randn(512, 3, IMAGE_SIZE, IMAGE_SIZE),
                         torch.randint(0, NUM_CLASSES, (512,)))
    loader = DataLoader(data, batch_size=args.batch_size, shuffle=True, drop_last=True)
    return types.SimpleNamespace(models={"model": model}, optimizers={"optimizer": optimizer},
                                 loader=loader, device=device)


def forward_loss(s, batch):
    images, labels = (t.to(s.device) for t in batch)
    return F.cross_entropy(s.models["model"](images), labels)


def train_step(s, batch):
    opt = s.optimizers["optimizer"]
    opt.zero_grad()
    loss = forward_loss(s, batch)
    loss.backward()
    opt.step()
    return loss.item()


def main(argv=None):
    args = parse_args(argv)
    s = build(args)
    step = 0
    for epoch in range(args.epochs):
        for batch in s.loader:
            loss = train_step(s, batch)
            step += 1
            if args.max_steps and step >= args.max_steps:
                return
        print(f"epoch {epoch}: loss {loss:.3f}")


if __name__ == "__main__":
    main()
