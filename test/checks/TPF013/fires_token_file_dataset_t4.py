# tpf: target=t4
# case: a GPT trained on samples its Dataset slices from a torch.load'ed token file (`data[i : i + block + 1]`): the slice gives the sequence length, so the verdict is known and over a T4
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset

BLOCK = 1024


class Block(nn.Module):
    def __init__(self, d, heads=12):
        super().__init__()
        self.norms = nn.ModuleList([nn.LayerNorm(d), nn.LayerNorm(d)])
        self.attn = nn.MultiheadAttention(d, heads, batch_first=True)
        self.fc = nn.Linear(d, 4 * d)
        self.proj = nn.Linear(4 * d, d)

    def forward(self, x):
        h = self.norms[0](x)
        x = x + self.attn(h, h, h, need_weights=False)[0]
        return x + self.proj(F.gelu(self.fc(self.norms[1](x))))


class GPT(nn.Module):
    def __init__(self, vocab=50304, d=768, layers=12):
        super().__init__()
        self.wte = nn.Embedding(vocab, d)
        self.wpe = nn.Embedding(BLOCK, d)
        self.blocks = nn.ModuleList([Block(d) for _ in range(layers)])
        self.ln_f = nn.LayerNorm(d)
        self.head = nn.Linear(d, vocab, bias=False)

    def forward(self, idx):
        t = idx.size(1)
        x = self.wte(idx) + self.wpe(torch.arange(t, device=idx.device))
        for b in self.blocks:
            x = b(x)
        return self.head(self.ln_f(x))


class Tokens(Dataset):
    def __init__(self, path, block):
        self.data = torch.load(path, weights_only=True)
        self.block = block

    def __len__(self):
        return len(self.data) - self.block - 1

    def __getitem__(self, i):
        chunk = self.data[i : i + self.block + 1]
        return chunk[:-1], chunk[1:]


parser = argparse.ArgumentParser()
parser.add_argument("--data", default="tokens.pt")
parser.add_argument("--batch-size", type=int, default=16)
args = parser.parse_args()

torch.manual_seed(0)
model = GPT().cuda()
opt = torch.optim.AdamW(model.parameters(), lr=3e-4)
loader = DataLoader(Tokens(args.data, BLOCK), batch_size=args.batch_size, shuffle=True, num_workers=4, pin_memory=True)
for x, y in loader:
    x, y = x.cuda(), y.cuda()
    logits = model(x)
    loss = F.cross_entropy(logits.view(-1, logits.size(-1)), y.view(-1))
    opt.zero_grad(set_to_none=True)
    loss.backward()  # expect: TPF013
    opt.step()
