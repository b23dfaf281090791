"""A small Vision Transformer trained under bf16 autocast.

Patch embedding by a strided conv, class token, learned positions, pre-LN
blocks with hand-written attention, AdamW. The forward runs inside
torch.autocast(dtype=torch.bfloat16) on whichever device is present (CPU
autocast supports bf16, which is how the ground truth is measured); weights
stay fp32, so autocast keeps bf16 copies of them for backward.
Fixture for tools/measure_memory.py; see test/memory/README.md.
"""
import argparse
import types
from dataclasses import dataclass

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset


@dataclass
class ViTConfig:
    image_size: int = 32
    patch_size: int = 4
    num_classes: int = 10
    dim: int = 192
    depth: int = 4
    heads: int = 3
    mlp_ratio: int = 4
    dropout: float = 0.0


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--batch-size", type=int, default=32)
    p.add_argument("--lr", type=float, default=1e-3)
    p.add_argument("--weight-decay", type=float, default=0.05)
    p.add_argument("--amp-dtype", default="bfloat16", choices=["bfloat16", "float16"])
    p.add_argument("--epochs", type=int, default=100)
    p.add_argument("--max-steps", type=int, default=None)
    return p.parse_args(argv)


class Attention(nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        self.heads = heads
        self.scale = (dim // heads) ** -0.5
        self.qkv = nn.Linear(dim, dim * 3)
        self.proj = nn.Linear(dim, dim)

    def forward(self, x):
        B, N, C = x.shape
        qkv = self.qkv(x).reshape(B, N, 3, self.heads, C // self.heads).permute(2, 0, 3, 1, 4)
        q, k, v = qkv[0], qkv[1], qkv[2]
        attn = (q @ k.transpose(-2, -1)) * self.scale
        attn = attn.softmax(dim=-1)
        x = (attn @ v).transpose(1, 2).reshape(B, N, C)
        return self.proj(x)


class Block(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.norm1 = nn.LayerNorm(cfg.dim)
        self.attn = Attention(cfg.dim, cfg.heads)
        self.norm2 = nn.LayerNorm(cfg.dim)
        self.mlp = nn.Sequential(nn.Linear(cfg.dim, cfg.dim * cfg.mlp_ratio), nn.GELU(),
                                 nn.Linear(cfg.dim * cfg.mlp_ratio, cfg.dim))

    def forward(self, x):
        x = x + self.attn(self.norm1(x))
        return x + self.mlp(self.norm2(x))


class ViT(nn.Module):
    def __init__(self, cfg: ViTConfig):
        super().__init__()
        n_patches = (cfg.image_size // cfg.patch_size) ** 2
        self.patch_embed = nn.Conv2d(3, cfg.dim, kernel_size=cfg.patch_size, stride=cfg.patch_size)
        self.cls_token = nn.Parameter(torch.zeros(1, 1, cfg.dim))
        self.pos_embed = nn.Parameter(torch.randn(1, n_patches + 1, cfg.dim) * 0.02)
        self.blocks = nn.Sequential(*[Block(cfg) for _ in range(cfg.depth)])
        self.norm = nn.LayerNorm(cfg.dim)
        self.head = nn.Linear(cfg.dim, cfg.num_classes)

    def forward(self, x):
        x = self.patch_embed(x).flatten(2).transpose(1, 2)
        x = torch.cat([self.cls_token.expand(x.size(0), -1, -1), x], dim=1) + self.pos_embed
        x = self.norm(self.blocks(x))
        return self.head(x[:, 0])


def build(args):
    device_type = "cuda" if torch.cuda.is_available() else "cpu"
    model = ViT(ViTConfig()).to(device_type)
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=args.weight_decay)
    data = TensorDataset(torch.randn(256, 3, 32, 32), torch.randint(0, 10, (256,)))
    loader = DataLoader(data, batch_size=args.batch_size, shuffle=True, drop_last=True)
    return types.SimpleNamespace(models={"model": model}, optimizers={"optimizer": optimizer},
                                 loader=loader, device=device_type,
                                 amp_dtype=getattr(torch, args.amp_dtype))


def forward_loss(s, batch):
    images, labels = batch[0].to(s.device), batch[1].to(s.device)
    with torch.autocast(device_type=s.device, dtype=s.amp_dtype):
        logits = s.models["model"](images)
        loss = F.cross_entropy(logits, labels)
    return loss


def train_step(s, batch):
    opt = s.optimizers["optimizer"]
    opt.zero_grad(set_to_none=True)
    loss = forward_loss(s, batch)
    loss.backward()  # bf16 needs no GradScaler: same exponent range as fp32
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
