# tpf: target=h100
"""A tokenized-corpus language model: the corpus is one flat file of int32 token ids read
with `np.fromfile` (its length is known only at run time), and each step draws `--batch`
random windows of `--context_length + 1` tokens with `np.random.randint(..., size=...)`,
stacks them with `np.stack` and splits each window into inputs and next-token targets.
Every window is `tokens[s : s + ctx + 1]` for an unknown start `s`: its length is ctx + 1
whatever `s` is, so the batch is (32, 128) int64 and the script's own step is followed,
not a synthesized one. torch 1.13 counts 4096*256 + 128*256 + 2*256 + (256*1024 + 1024)
+ (1024*256 + 256) + 256*4096 = 2,656,000 parameters."""
import argparse

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

parser = argparse.ArgumentParser()
parser.add_argument("--tokens", default="corpus/train.i32")
parser.add_argument("--batch", type=int, default=32)
parser.add_argument("--context_length", type=int, default=128)
parser.add_argument("--vocab", type=int, default=4096)
parser.add_argument("--steps", type=int, default=1000)
args = parser.parse_args()


class TokenWindows:
    def __init__(self, path, ctx):
        self.ids = np.fromfile(path, dtype=np.int32)
        self.ctx = ctx

    def draw(self, n):
        starts = np.random.randint(0, len(self.ids) - self.ctx - 1, size=n)
        windows = np.stack([self.ids[s : s + self.ctx + 1] for s in starts]).astype(np.int64)
        chunk = torch.from_numpy(windows)
        return chunk[:, :-1].cuda(non_blocking=True), chunk[:, 1:].cuda(non_blocking=True)


class WindowLM(nn.Module):
    def __init__(self, vocab, width, ctx):
        super().__init__()
        self.tok = nn.Embedding(vocab, width)
        self.pos = nn.Embedding(ctx, width)
        self.mix = nn.Sequential(nn.LayerNorm(width), nn.Linear(width, 4 * width), nn.GELU(),
                                 nn.Linear(4 * width, width))
        self.head = nn.Linear(width, vocab, bias=False)

    def forward(self, idx, targets):
        t = idx.shape[1]
        h = self.tok(idx) + self.pos(torch.arange(t, device=idx.device))
        h = h + self.mix(h)
        logits = self.head(h)
        return F.cross_entropy(logits.view(-1, logits.size(-1)), targets.reshape(-1))


data = TokenWindows(args.tokens, args.context_length)
model = WindowLM(args.vocab, 256, args.context_length).cuda()
opt = torch.optim.AdamW(model.parameters(), lr=3e-4)
for step in range(args.steps):
    x, y = data.draw(args.batch)
    loss = model(x, y)
    opt.zero_grad(set_to_none=True)
    loss.backward()
    opt.step()
