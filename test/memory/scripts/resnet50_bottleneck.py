"""ResNet-50 (Bottleneck blocks, ImageNet stem) trained on 96x96 crops.

A real ResNet-50 layout ([3, 4, 6, 3] bottlenecks, width 64) on small crops so
one CPU step takes seconds. RMSprop, as in the EfficientNet-style recipes.
Fixture for tools/measure_memory.py; see test/memory/README.md.
"""
import argparse
import types
from dataclasses import dataclass

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


@dataclass
class Config:
    layers: tuple = (3, 4, 6, 3)
    width: int = 64
    num_classes: int = 100
    image_size: int = 96
    batch_size: int = 4
    lr: float = 0.016


def parse_args(argv=None):
    cfg = Config()
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--batch-size", type=int, default=cfg.batch_size)
    p.add_argument("--image-size", type=int, default=cfg.image_size)
    p.add_argument("--lr", type=float, default=cfg.lr)
    p.add_argument("--max-steps", type=int, default=None)
    return p.parse_args(argv)


class Bottleneck(nn.Module):
    expansion = 4

    def __init__(self, inplanes, planes, stride=1, downsample=None):
        super().__init__()
        self.conv1 = nn.Conv2d(inplanes, planes, kernel_size=1, bias=False)
        self.bn1 = nn.BatchNorm2d(planes)
        self.conv2 = nn.Conv2d(planes, planes, kernel_size=3, stride=stride, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(planes)
        self.conv3 = nn.Conv2d(planes, planes * self.expansion, kernel_size=1, bias=False)
        self.bn3 = nn.BatchNorm2d(planes * self.expansion)
        self.relu = nn.ReLU(inplace=True)
        self.downsample = downsample

    def forward(self, x):
        identity = x
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.relu(self.bn2(self.conv2(out)))
        out = self.bn3(self.conv3(out))
        if self.downsample is not None:
            identity = self.downsample(x)
        out += identity
        return self.relu(out)


class ResNet(nn.Module):
    def __init__(self, cfg: Config):
        super().__init__()
        self.inplanes = cfg.width
        self.conv1 = nn.Conv2d(3, cfg.width, kernel_size=7, stride=2, padding=3, bias=False)
        self.bn1 = nn.BatchNorm2d(cfg.width)
        self.relu = nn.ReLU(inplace=True)
        self.maxpool = nn.MaxPool2d(kernel_size=3, stride=2, padding=1)
        self.layer1 = self._make_layer(cfg.width, cfg.layers[0])
        self.layer2 = self._make_layer(cfg.width * 2, cfg.layers[1], stride=2)
        self.layer3 = self._make_layer(cfg.width * 4, cfg.layers[2], stride=2)
        self.layer4 = self._make_layer(cfg.width * 8, cfg.layers[3], stride=2)
        self.avgpool = nn.AdaptiveAvgPool2d((1, 1))
        self.fc = nn.Linear(cfg.width * 8 * Bottleneck.expansion, cfg.num_classes)

    def _make_layer(self, planes, blocks, stride=1):
        downsample = None
        if stride != 1 or self.inplanes != planes * Bottleneck.expansion:
            downsample = nn.Sequential(
                nn.Conv2d(self.inplanes, planes * Bottleneck.expansion, 1, stride=stride, bias=False),
                nn.BatchNorm2d(planes * Bottleneck.expansion),
            )
        layers = [Bottleneck(self.inplanes, planes, stride, downsample)]
        self.inplanes = planes * Bottleneck.expansion
        for _ in range(1, blocks):
            layers.append(Bottleneck(self.inplanes, planes))
        return nn.Sequential(*layers)

    def forward(self, x):
        x = self.maxpool(self.relu(self.bn1(self.conv1(x))))
        x = self.layer4(self.layer3(self.layer2(self.layer1(x))))
        return self.fc(torch.flatten(self.avgpool(x), 1))


def build(args):
    cfg = Config(batch_size=args.batch_size, image_size=args.image_size, lr=args.lr)
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model = ResNet(cfg).to(device)
    optimizer = torch.optim.RMSprop(model.parameters(), lr=cfg.lr, alpha=0.9, eps=0.0316,
                                    momentum=0.9, weight_decay=1e-5)
    n = 8 * cfg.batch_size
    data = TensorDataset(torch.randn(n, 3, cfg.image_size, cfg.image_size),
                         torch.randint(0, cfg.num_classes, (n,)))
    loader = DataLoader(data, batch_size=cfg.batch_size, shuffle=True, drop_last=True)
    return types.SimpleNamespace(models={"model": model}, optimizers={"optimizer": optimizer},
                                 loader=loader, device=device, criterion=nn.CrossEntropyLoss())


def forward_loss(s, batch):
    images, target = batch
    images, target = images.to(s.device, non_blocking=True), target.to(s.device)
    return s.criterion(s.models["model"](images), target)


def train_step(s, batch):
    optimizer = s.optimizers["optimizer"]
    loss = forward_loss(s, batch)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    return loss.item()


def main(argv=None):
    args = parse_args(argv)
    s = build(args)
    for i, batch in enumerate(s.loader):
        train_step(s, batch)
        if args.max_steps and i + 1 >= args.max_steps:
            break


if __name__ == "__main__":
    main()
