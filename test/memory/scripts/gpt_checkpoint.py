"""Decoder-only LM with activation (gradient) checkpointing per block.

Pre-LN blocks on nn.MultiheadAttention with a causal mask; each block's
forward runs under torch.utils.checkpoint.checkpoint, so only block inputs
are kept for backward and the block is recomputed then. --no-grad-checkpoint
turns it off (VARIANTS measures both). Adam. Fixture for
tools/measure_memory.py; see test/memory/README.md.
"""
import argparse
import types

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.checkpoint import checkpoint
from torch.utils.data import DataLoader, TensorDataset

VOCAB = 3072
SEQ_LEN = 128
D_MODEL = 256
N_HEADS = 4
N_LAYERS = 4

# Extra argument lists the measuring tool also runs (activations only).
VARIANTS = {"no_checkpoint": ["--no-grad-checkpoint"]}


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--batch-size", type=int, default=4)
    p.add_argument("--lr", type=float, default=3e-4)
    p.add_argument("--grad-checkpoint", action=argparse.BooleanOptionalAction, default=True)
    p.add_argument("--max-steps", type=int, default=None)
    return p.parse_args(argv)


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.ln1 = nn.LayerNorm(D_MODEL)
        self.attn = nn.MultiheadAttention(D_MODEL, N_HEADS, dropout=0.0, batch_first=True)
        self.ln2 = nn.LayerNorm(D_MODEL)
        self.ff = nn.Sequential(nn.Linear(D_MODEL, 4 * D_MODEL), nn.GELU(),
                                nn.Linear(4 * D_MODEL, D_MODEL))

    def forward(self, x, mask):
        h = self.ln1(x)
        x = x + self.attn(h, h, h, attn_mask=mask, need_weights=False)[0]
        return x + self.ff(self.ln2(x))


class LM(nn.Module):
    def __init__(self, grad_checkpoint):
        super().__init__()
        self.tok = nn.Embedding(VOCAB, D_MODEL)
        self.pos = nn.Embedding(SEQ_LEN, D_MODEL)
        self.blocks = nn.ModuleList([Block() for _ in range(N_LAYERS)])
        self.ln_f = nn.LayerNorm(D_MODEL)
        self.head = nn.Linear(D_MODEL, VOCAB, bias=False)
        self.grad_checkpoint = grad_checkpoint
        mask = torch.triu(torch.full((SEQ_LEN, SEQ_LEN), float("-inf")), diagonal=1)
        self.register_buffer("causal_mask", mask)

    def forward(self, idx):
        t = idx.size(1)
        x = self.tok(idx) + self.pos(torch.arange(t, device=idx.device))
        mask = self.causal_mask[:t, :t]
        for block in self.blocks:
            if self.grad_checkpoint and self.training:
                x = checkpoint(block, x, mask)
            else:
                x = block(x, mask)
        return self.head(self.ln_f(x))


def build(args):
    device = "cuda" if torch.cuda.is_available() else "cpu"
    model = LM(args.grad_checkpoint).to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
    tokens = torch.randint(0, VOCAB, (64, SEQ_LEN + 1))
    loader = DataLoader(TensorDataset(tokens[:, :-1], tokens[:, 1:]), batch_size=args.batch_size,
                        shuffle=True)
    return types.SimpleNamespace(models={"model": model}, optimizers={"optimizer": optimizer},
                                 loader=loader, device=device)


def forward_loss(s, batch):
    x, y = batch[0].to(s.device), batch[1].to(s.device)
    logits = s.models["model"](x)
    return F.cross_entropy(logits.reshape(-1, VOCAB), y.reshape(-1))


def train_step(s, batch):
    opt = s.optimizers["optimizer"]
    opt.zero_grad(set_to_none=True)
    loss = forward_loss(s, batch)
    loss.backward()
    opt.step()
    return loss.item()


def main(argv=None):
    args = parse_args(argv)
    s = build(args)
    for step, batch in enumerate(s.loader):
        train_step(s, batch)
        if args.max_steps and step + 1 >= args.max_steps:
            break


if __name__ == "__main__":
    main()
