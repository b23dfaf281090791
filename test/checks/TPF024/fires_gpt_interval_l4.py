# tpf: target=l4
# case: a GPT written in the script, bf16 autocast, AdamW, batch 51 from argparse: 92% of an L4, the interval's high end over it
import argparse
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class Block(nn.Module):
    def __init__(self, d, heads):
        super().__init__()
        self.ln1 = nn.LayerNorm(d)
        self.attn = nn.MultiheadAttention(d, heads, batch_first=True)
        self.ln2 = nn.LayerNorm(d)
        self.mlp = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))

    def forward(self, x):
        h = self.ln1(x)
        x = x + self.attn(h, h, h, need_weights=False)[0]
        return x + self.mlp(self.ln2(x))


class TinyGPT(nn.Module):
    def __init__(self, vocab, d, layers, heads, ctx):
        super().__init__()
        self.tok = nn.Embedding(vocab, d)
        self.pos = nn.Embedding(ctx, d)
        self.blocks = nn.ModuleList([Block(d, heads) for _ in range(layers)])
        self.head = nn.Linear(d, vocab, bias=False)

    def forward(self, idx):
        t = torch.arange(idx.shape[1], device=idx.device)
        x = self.tok(idx) + self.pos(t)
        for b in self.blocks:
            x = b(x)
        return self.head(x)


p = argparse.ArgumentParser()
p.add_argument("--batch", type=int, default=51)
p.add_argument("--ctx", type=int, default=512)
args = p.parse_args()
model = TinyGPT(32000, 512, 8, 8, args.ctx).cuda()
opt = torch.optim.AdamW(model.parameters(), lr=3e-4)
for step in range(1000):
    idx = torch.randint(0, 32000, (args.batch, args.ctx), device="cuda")
    with torch.autocast("cuda", dtype=torch.bfloat16):
        logits = model(idx)
        loss = F.cross_entropy(logits.view(-1, logits.size(-1)), idx.view(-1))
    loss.backward()  # expect: TPF024
    opt.step()
    opt.zero_grad(set_to_none=True)
