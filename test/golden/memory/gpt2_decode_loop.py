# tpf: target=t4
"""A GPT-2-style decoder (learned positions, LayerNorm, GELU MLP, one fused
qkv projection, an untied head) generating with a hand-written decode loop
and a KV cache under torch.no_grad(). Each pass returns new (k, v) tuples
while the caller still holds the old ones. Small enough to run on a CPU:
tools/measure_infer.py measures it under Debian's torch."""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

vocab_size = 2048
n_layer = 4
n_head = 8
n_embd = 256
block_size = 1024
batch_size = 8
prompt_len = 64
max_new_tokens = 192


class Attention(nn.Module):
    def __init__(self):
        super().__init__()
        self.c_attn = nn.Linear(n_embd, 3 * n_embd)
        self.c_proj = nn.Linear(n_embd, n_embd)

    def forward(self, x, past):
        B, T, C = x.size()
        q, k, v = self.c_attn(x).split(n_embd, dim=2)
        q = q.view(B, T, n_head, C // n_head).transpose(1, 2)
        k = k.view(B, T, n_head, C // n_head).transpose(1, 2)
        v = v.view(B, T, n_head, C // n_head).transpose(1, 2)
        if past is not None:
            k = torch.cat([past[0], k], dim=2)
            v = torch.cat([past[1], v], dim=2)
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(C // n_head))
        if T > 1:
            mask = torch.tril(torch.ones(T, T))
            att = att.masked_fill(mask == 0, float("-inf"))
        att = F.softmax(att, dim=-1)
        y = (att @ v).transpose(1, 2).contiguous().view(B, T, C)
        return self.c_proj(y), (k, v)


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.ln_1 = nn.LayerNorm(n_embd)
        self.attn = Attention()
        self.ln_2 = nn.LayerNorm(n_embd)
        self.fc = nn.Linear(n_embd, 4 * n_embd)
        self.proj = nn.Linear(4 * n_embd, n_embd)

    def forward(self, x, past):
        a, present = self.attn(self.ln_1(x), past)
        x = x + a
        x = x + self.proj(F.gelu(self.fc(self.ln_2(x))))
        return x, present


class GPT(nn.Module):
    def __init__(self):
        super().__init__()
        self.wte = nn.Embedding(vocab_size, n_embd)
        self.wpe = nn.Embedding(block_size, n_embd)
        self.h = nn.ModuleList([Block() for _ in range(n_layer)])
        self.ln_f = nn.LayerNorm(n_embd)
        self.lm_head = nn.Linear(n_embd, vocab_size, bias=False)

    def forward(self, idx, past=None):
        B, T = idx.size()
        start = 0 if past is None else past[0][0].size(2)
        pos = torch.arange(start, start + T)
        x = self.wte(idx) + self.wpe(pos)
        presents = []
        for i, block in enumerate(self.h):
            x, p = block(x, None if past is None else past[i])
            presents.append(p)
        return self.lm_head(self.ln_f(x)), presents


model = GPT().eval()
idx = torch.randint(0, vocab_size, (batch_size, prompt_len))
with torch.no_grad():
    past = None
    x = idx
    for _ in range(max_new_tokens):
        logits, past = model(x, past)
        x = logits[:, -1, :].argmax(dim=-1, keepdim=True)
        idx = torch.cat([idx, x], dim=1)
print(idx.shape)
