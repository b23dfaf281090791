"""A convolutional denoiser configured from a YAML or JSON file named on the command line
(--config), read with yaml.safe_load or json.load; --omegaconf reads it with OmegaConf.load
and attribute access instead."""
import argparse
import json

import torch
import torch.nn as nn
import yaml
from omegaconf import OmegaConf

parser = argparse.ArgumentParser()
parser.add_argument("--config", default="configs/base.yaml")
parser.add_argument("--omegaconf", action="store_true")
args = parser.parse_args()
if args.omegaconf:
    conf = OmegaConf.load(args.config)
    channels, blocks = conf.model.channels, conf.model.blocks
    size, batch = conf.data.image_size, conf.data["batch_size"]
else:
    with open(args.config) as f:
        conf = json.load(f) if args.config.endswith(".json") else yaml.safe_load(f)
    channels, blocks = conf["model"]["channels"], conf["model"]["blocks"]
    size, batch = conf["data"]["image_size"], conf["data"]["batch_size"]


def block(c):
    return nn.Sequential(nn.Conv2d(c, c, 3, padding=1), nn.BatchNorm2d(c), nn.ReLU())


model = nn.Sequential(nn.Conv2d(3, channels, 3, padding=1), *[block(channels) for _ in range(blocks)],
                      nn.Conv2d(channels, 3, 3, padding=1)).cuda()
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
for step in range(1000):
    clean = torch.rand(batch, 3, size, size, device="cuda")
    noisy = clean + 0.1 * torch.randn_like(clean)
    loss = (model(noisy) - clean).square().mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
