"""U-Net for binary segmentation of 128x128 single-channel images.

Four down/up levels (32..256 channels, a 512-channel bottleneck), double 3x3
conv blocks with batch norm, transposed-conv upsampling and skip
concatenations. Adam, BCE-with-logits loss. Fixture for
tools/measure_memory.py; see test/memory/README.md.
"""
import argparse
import types

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

IN_CHANNELS = 1
OUT_CHANNELS = 1
BASE_FEATURES = 32
IMG_SIZE = 128


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--batch-size", type=int, default=2)
    p.add_argument("--lr", type=float, default=1e-4)
    p.add_argument("--epochs", type=int, default=100)
    p.add_argument("--max-steps", type=int, default=None)
    return p.parse_args(argv)


class DoubleConv(nn.Module):
    def __init__(self, in_ch, out_ch):
        super().__init__()
        self.block = nn.Sequential(
            nn.Conv2d(in_ch, out_ch, 3, padding=1, bias=False),
            nn.BatchNorm2d(out_ch),
            nn.ReLU(inplace=True),
            nn.Conv2d(out_ch, out_ch, 3, padding=1, bias=False),
            nn.BatchNorm2d(out_ch),
            nn.ReLU(inplace=True),
        )

    def forward(self, x):
        return self.block(x)


class UNet(nn.Module):
    def __init__(self, in_channels=IN_CHANNELS, out_channels=OUT_CHANNELS, features=BASE_FEATURES):
        super().__init__()
        widths = [features * 2 ** i for i in range(4)]
        self.downs = nn.ModuleList()
        self.ups = nn.ModuleList()
        self.pool = nn.MaxPool2d(2, 2)
        ch = in_channels
        for w in widths:
            self.downs.append(DoubleConv(ch, w))
            ch = w
        self.bottleneck = DoubleConv(widths[-1], widths[-1] * 2)
        for w in reversed(widths):
            self.ups.append(nn.ConvTranspose2d(w * 2, w, kernel_size=2, stride=2))
            self.ups.append(DoubleConv(w * 2, w))
        self.final_conv = nn.Conv2d(widths[0], out_channels, kernel_size=1)

    def forward(self, x):
        skips = []
        for down in self.downs:
            x = down(x)
            skips.append(x)
            x = self.pool(x)
        x = self.bottleneck(x)
        skips = skips[::-1]
        for i in range(0, len(self.ups), 2):
            x = self.ups[i](x)
            x = torch.cat((skips[i // 2], x), dim=1)
            x = self.ups[i + 1](x)
        return self.final_conv(x)


def build(args):
    device = "cuda" if torch.cuda.is_available() else "cpu"
    model = UNet().to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
    images = torch.randn(32, IN_CHANNELS, IMG_SIZE, IMG_SIZE)
    masks = (torch.rand(32, OUT_CHANNELS, IMG_SIZE, IMG_SIZE) > 0.5).float()
    loader = DataLoader(TensorDataset(images, masks), batch_size=args.batch_size, shuffle=True)
    return types.SimpleNamespace(models={"model": model}, optimizers={"optimizer": optimizer},
                                 loader=loader, device=device)


def forward_loss(s, batch):
    image, mask = batch[0].to(s.device), batch[1].to(s.device)
    return F.binary_cross_entropy_with_logits(s.models["model"](image), mask)


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
