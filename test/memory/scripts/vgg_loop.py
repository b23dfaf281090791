"""VGG-11 with batch norm for 32x32 images, features built in a loop from a cfg.

Adagrad. Fixture for tools/measure_memory.py; see test/memory/README.md.
"""
import argparse
import types

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

CFG = {
    "vgg11": [64, "M", 128, "M", 256, 256, "M", 512, 512, "M", 512, 512, "M"],
    "vgg16": [64, 64, "M", 128, 128, "M", 256, 256, 256, "M", 512, 512, 512, "M",
              512, 512, 512, "M"],
}


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--arch", default="vgg11", choices=sorted(CFG))
    p.add_argument("--batch-size", type=int, default=16)
    p.add_argument("--lr", type=float, default=0.01)
    p.add_argument("--epochs", type=int, default=50)
    p.add_argument("--max-steps", type=int, default=None)
    return p.parse_args(argv)


def make_features(cfg, batch_norm=True):
    layers = []
    in_channels = 3
    for v in cfg:
        if v == "M":
            layers += [nn.MaxPool2d(kernel_size=2, stride=2)]
        else:
            conv = nn.Conv2d(in_channels, v, kernel_size=3, padding=1)
            if batch_norm:
                layers += [conv, nn.BatchNorm2d(v), nn.ReLU(inplace=True)]
            else:
                layers += [conv, nn.ReLU(inplace=True)]
            in_channels = v
    return nn.Sequential(*layers)


class VGG(nn.Module):
    def __init__(self, features, num_classes=10):
        super().__init__()
        self.features = features
        self.classifier = nn.Sequential(
            nn.Linear(512, 512),
            nn.ReLU(True),
            nn.Dropout(0.5),
            nn.Linear(512, 512),
            nn.ReLU(True),
            nn.Dropout(0.5),
            nn.Linear(512, num_classes),
        )

    def forward(self, x):
        x = self.features(x)
        x = x.view(x.size(0), -1)
        return self.classifier(x)


def build(args):
    device = "cuda" if torch.cuda.is_available() else "cpu"
    model = VGG(make_features(CFG[args.arch])).to(device)
    optimizer = torch.optim.Adagrad(model.parameters(), lr=args.lr)
    data = TensorDataset(torch.randn(128, 3, 32, 32), torch.randint(0, 10, (128,)))
    loader = DataLoader(data, batch_size=args.batch_size, shuffle=True)
    return types.SimpleNamespace(models={"model": model}, optimizers={"optimizer": optimizer},
                                 loader=loader, device=device, criterion=nn.CrossEntropyLoss())


def forward_loss(s, batch):
    x, y = batch[0].to(s.device), batch[1].to(s.device)
    return s.criterion(s.models["model"](x), y)


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
    for _ in range(args.epochs):
        for batch in s.loader:
            train_step(s, batch)
            step += 1
            if args.max_steps and step >= args.max_steps:
                return


if __name__ == "__main__":
    main()
