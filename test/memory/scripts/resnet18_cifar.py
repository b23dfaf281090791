"""ResNet-18 (BasicBlock) for CIFAR-10, the usual 3x3-stem variant.

SGD with Nesterov momentum and weight decay. Fixture for
tools/measure_memory.py; see test/memory/README.md for the convention.
"""
import argparse
import types

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--batch-size", type=int, default=16)
    p.add_argument("--lr", type=float, default=0.1)
    p.add_argument("--momentum", type=float, default=0.9)
    p.add_argument("--weight-decay", type=float, default=5e-4)
    p.add_argument("--epochs", type=int, default=200)
    p.add_argument("--max-steps", type=int, default=None)
    return p.parse_args(argv)


class BasicBlock(nn.Module):
    expansion = 1

    def __init__(self, in_planes, planes, stride=1):
        super().__init__()
        self.conv1 = nn.Conv2d(in_planes, planes, 3, stride=stride, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(planes)
        self.conv2 = nn.Conv2d(planes, planes, 3, stride=1, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(planes)
        self.shortcut = nn.Sequential()
        if stride != 1 or in_planes != planes:
            self.shortcut = nn.Sequential(
                nn.Conv2d(in_planes, planes, 1, stride=stride, bias=False),
                nn.BatchNorm2d(planes),
            )

    def forward(self, x):
        out = F.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        out = out + self.shortcut(x)
        return F.relu(out)


class ResNet(nn.Module):
    def __init__(self, block, num_blocks, num_classes=10):
        super().__init__()
        self.in_planes = 64
        self.conv1 = nn.Conv2d(3, 64, 3, stride=1, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(64)
        self.layer1 = self._make_layer(block, 64, num_blocks[0], stride=1)
        self.layer2 = self._make_layer(block, 128, num_blocks[1], stride=2)
        self.layer3 = self._make_layer(block, 256, num_blocks[2], stride=2)
        self.layer4 = self._make_layer(block, 512, num_blocks[3], stride=2)
        self.linear = nn.Linear(512 * block.expansion, num_classes)

    def _make_layer(self, block, planes, num_blocks, stride):
        layers = []
        for s in [stride] + [1] * (num_blocks - 1):
            layers.append(block(self.in_planes, planes, s))
            self.in_planes = planes * block.expansion
        return nn.Sequential(*layers)

    def forward(self, x):
        out = F.relu(self.bn1(self.conv1(x)))
        out = self.layer4(self.layer3(self.layer2(self.layer1(out))))
        out = F.adaptive_avg_pool2d(out, 1).flatten(1)
        return self.linear(out)


def ResNet18():
    return ResNet(BasicBlock, [2, 2, 2, 2])


def build(args):
    device = "cuda" if torch.cuda.is_available() else "cpu"
    model = ResNet18().to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=args.momentum,
                                weight_decay=args.weight_decay, nesterov=True)
    trainset = TensorDataset(torch.randn(256, 3, 32, 32), torch.randint(0, 10, (256,)))
    loader = DataLoader(trainset, batch_size=args.batch_size, shuffle=True, num_workers=0)
    return types.SimpleNamespace(models={"model": model}, optimizers={"optimizer": optimizer},
                                 loader=loader, device=device)


def forward_loss(s, batch):
    inputs, targets = batch[0].to(s.device), batch[1].to(s.device)
    return nn.CrossEntropyLoss()(s.models["model"](inputs), targets)


def train_step(s, batch):
    optimizer = s.optimizers["optimizer"]
    optimizer.zero_grad()
    loss = forward_loss(s, batch)
    loss.backward()
    optimizer.step()
    return loss.item()


def main(argv=None):
    args = parse_args(argv)
    s = build(args)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(s.optimizers["optimizer"], args.epochs)
    step = 0
    for epoch in range(args.epochs):
        for batch in s.loader:
            train_step(s, batch)
            step += 1
            if args.max_steps and step >= args.max_steps:
                return
        scheduler.step()


if __name__ == "__main__":
    main()
