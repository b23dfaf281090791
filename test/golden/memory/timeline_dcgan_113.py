# tpf: target=t4 torch-version=1.13 timeline
"""DCGAN on 32x32 images: a generator and a discriminator, one Adam each.

The usual alternating step: update D on a real batch and on G's fakes
(detached), then update G through D on the same fakes. Fixture for
tools/measure_memory.py; PHASES names the two forward passes it measures
(see test/memory/README.md).
"""
import argparse
import types

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

nz = 100   # latent vector size
ngf = 64   # generator feature maps
ndf = 64   # discriminator feature maps
nc = 3     # image channels


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--batchSize", type=int, default=16)
    p.add_argument("--imageSize", type=int, default=32)
    p.add_argument("--lr", type=float, default=0.0002)
    p.add_argument("--beta1", type=float, default=0.5)
    p.add_argument("--niter", type=int, default=25)
    p.add_argument("--max-steps", type=int, default=None)
    return p.parse_args(argv)


def weights_init(m):
    name = m.__class__.__name__
    if name.find("Conv") != -1:
        nn.init.normal_(m.weight, 0.0, 0.02)
    elif name.find("BatchNorm") != -1:
        nn.init.normal_(m.weight, 1.0, 0.02)
        nn.init.zeros_(m.bias)


class Generator(nn.Module):
    def __init__(self):
        super().__init__()
        self.main = nn.Sequential(
            nn.ConvTranspose2d(nz, ngf * 4, 4, 1, 0, bias=False),       # 4x4
            nn.BatchNorm2d(ngf * 4),
            nn.ReLU(True),
            nn.ConvTranspose2d(ngf * 4, ngf * 2, 4, 2, 1, bias=False),  # 8x8
            nn.BatchNorm2d(ngf * 2),
            nn.ReLU(True),
            nn.ConvTranspose2d(ngf * 2, ngf, 4, 2, 1, bias=False),      # 16x16
            nn.BatchNorm2d(ngf),
            nn.ReLU(True),
            nn.ConvTranspose2d(ngf, nc, 4, 2, 1, bias=False),           # 32x32
            nn.Tanh(),
        )

    def forward(self, z):
        return self.main(z)


class Discriminator(nn.Module):
    def __init__(self):
        super().__init__()
        self.main = nn.Sequential(
            nn.Conv2d(nc, ndf, 4, 2, 1, bias=False),                    # 16x16
            nn.LeakyReLU(0.2, inplace=True),
            nn.Conv2d(ndf, ndf * 2, 4, 2, 1, bias=False),               # 8x8
            nn.BatchNorm2d(ndf * 2),
            nn.LeakyReLU(0.2, inplace=True),
            nn.Conv2d(ndf * 2, ndf * 4, 4, 2, 1, bias=False),           # 4x4
            nn.BatchNorm2d(ndf * 4),
            nn.LeakyReLU(0.2, inplace=True),
            nn.Conv2d(ndf * 4, 1, 4, 1, 0, bias=False),                 # 1x1
        )

    def forward(self, x):
        return self.main(x).view(-1)


def build(args):
    device = torch.device("cuda:0" if torch.cuda.is_available() else "cpu")
    netG = Generator().to(device)
    netG.apply(weights_init)
    netD = Discriminator().to(device)
    netD.apply(weights_init)
    optimizerD = torch.optim.Adam(netD.parameters(), lr=args.lr, betas=(args.beta1, 0.999))
    optimizerG = torch.optim.Adam(netG.parameters(), lr=args.lr, betas=(args.beta1, 0.999))
    images = torch.rand(256, nc, args.imageSize, args.imageSize) * 2 - 1
    dataloader = DataLoader(TensorDataset(images), batch_size=args.batchSize, shuffle=True)
    return types.SimpleNamespace(models={"netG": netG, "netD": netD},
                                 optimizers={"optimizerD": optimizerD, "optimizerG": optimizerG},
                                 loader=dataloader, device=device,
                                 criterion=nn.BCEWithLogitsLoss(), fake=None)


def discriminator_loss(s, batch):
    real = batch[0].to(s.device)
    b = real.size(0)
    netG, netD = s.models["netG"], s.models["netD"]
    errD_real = s.criterion(netD(real), torch.ones(b, device=s.device))
    noise = torch.randn(b, nz, 1, 1, device=s.device)
    s.fake = netG(noise)
    errD_fake = s.criterion(netD(s.fake.detach()), torch.zeros(b, device=s.device))
    return {"errD_real": errD_real, "errD_fake": errD_fake}


def generator_loss(s, batch):
    b = s.fake.size(0)
    return s.criterion(s.models["netD"](s.fake), torch.ones(b, device=s.device))


PHASES = {"discriminator": discriminator_loss, "generator": generator_loss}


def train_step(s, batch):
    netG, netD = s.models["netG"], s.models["netD"]
    netD.zero_grad()
    errD = discriminator_loss(s, batch)
    (errD["errD_real"] + errD["errD_fake"]).backward()
    s.optimizers["optimizerD"].step()
    netG.zero_grad()
    errG = generator_loss(s, batch)
    errG.backward()
    s.optimizers["optimizerG"].step()
    return errG.item()


def main(argv=None):
    args = parse_args(argv)
    s = build(args)
    step = 0
    for epoch in range(args.niter):
        for batch in s.loader:
            train_step(s, batch)
            step += 1
            if args.max_steps and step >= args.max_steps:
                return


if __name__ == "__main__":
    main()
