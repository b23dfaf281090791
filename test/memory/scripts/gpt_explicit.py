"""A small GPT trained on a token stream, attention written out by hand.

nanoGPT-style: a GPTConfig dataclass, causal self-attention with an explicit
softmax over the (T, T) score matrix and a registered causal-mask buffer,
GELU MLP, pre-LayerNorm blocks, weight tying between the token embedding and
the LM head, AdamW with decay / no-decay parameter groups.
Fixture for tools/measure_memory.py; see test/memory/README.md.
"""
import argparse
import math
import types
from dataclasses import dataclass

import torch
import torch.nn as nn
from torch.nn import functional as F
from torch.utils.data import DataLoader, Dataset

batch_size = 4
block_size = 128
learning_rate = 6e-4
weight_decay = 0.1
max_iters = 5000


@dataclass
class GPTConfig:
    block_size: int = block_size
    vocab_size: int = 4096
    n_layer: int = 4
    n_head: int = 4
    n_embd: int = 256
    dropout: float = 0.1
    bias: bool = True


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--batch-size", type=int, default=batch_size)
    p.add_argument("--block-size", type=int, default=block_size)
    p.add_argument("--lr", type=float, default=learning_rate)
    p.add_argument("--max-iters", type=int, default=max_iters)
    p.add_argument("--max-steps", type=int, default=None)
    return p.parse_args(argv)


class CausalSelfAttention(nn.Module):
    def __init__(self, config):
        super().__init__()
        assert config.n_embd % config.n_head == 0
        self.c_attn = nn.Linear(config.n_embd, 3 * config.n_embd, bias=config.bias)
        self.c_proj = nn.Linear(config.n_embd, config.n_embd, bias=config.bias)
        self.attn_dropout = nn.Dropout(config.dropout)
        self.resid_dropout = nn.Dropout(config.dropout)
        self.n_head = config.n_head
        self.n_embd = config.n_embd
        self.register_buffer("bias", torch.tril(torch.ones(config.block_size, config.block_size))
                             .view(1, 1, config.block_size, config.block_size))

    def forward(self, x):
        B, T, C = x.size()
        q, k, v = self.c_attn(x).split(self.n_embd, dim=2)
        k = k.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        q = q.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        v = v.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
        att = att.masked_fill(self.bias[:, :, :T, :T] == 0, float("-inf"))
        att = F.softmax(att, dim=-1)
        att = self.attn_dropout(att)
        y = att @ v
        y = y.transpose(1, 2).contiguous().view(B, T, C)
        return self.resid_dropout(self.c_proj(y))


class MLP(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.c_fc = nn.Linear(config.n_embd, 4 * config.n_embd, bias=config.bias)
        self.gelu = nn.GELU()
        self.c_proj = nn.Linear(4 * config.n_embd, config.n_embd, bias=config.bias)
        self.dropout = nn.Dropout(config.dropout)

    def forward(self, x):
        return self.dropout(self.c_proj(self.gelu(self.c_fc(x))))


class Block(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.ln_1 = nn.LayerNorm(config.n_embd)
        self.attn = CausalSelfAttention(config)
        self.ln_2 = nn.LayerNorm(config.n_embd)
        self.mlp = MLP(config)

    def forward(self, x):
        x = x + self.attn(self.ln_1(x))
        x = x + self.mlp(self.ln_2(x))
        return x


class GPT(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.config = config
        self.transformer = nn.ModuleDict(dict(
            wte=nn.Embedding(config.vocab_size, config.n_embd),
            wpe=nn.Embedding(config.block_size, config.n_embd),
            drop=nn.Dropout(config.dropout),
            h=nn.ModuleList([Block(config) for _ in range(config.n_layer)]),
            ln_f=nn.LayerNorm(config.n_embd),
        ))
        self.lm_head = nn.Linear(config.n_embd, config.vocab_size, bias=False)
        self.transformer.wte.weight = self.lm_head.weight  # weight tying

    def forward(self, idx, targets=None):
        b, t = idx.size()
        pos = torch.arange(0, t, dtype=torch.long, device=idx.device)
        x = self.transformer.drop(self.transformer.wte(idx) + self.transformer.wpe(pos))
        for block in self.transformer.h:
            x = block(x)
        logits = self.lm_head(self.transformer.ln_f(x))
        loss = None
        if targets is not None:
            loss = F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1))
        return logits, loss

    def configure_optimizers(self, weight_decay, learning_rate, betas):
        params = [p for p in self.parameters() if p.requires_grad]
        decay = [p for p in params if p.dim() >= 2]
        nodecay = [p for p in params if p.dim() < 2]
        groups = [{"params": decay, "weight_decay": weight_decay},
                  {"params": nodecay, "weight_decay": 0.0}]
        return torch.optim.AdamW(groups, lr=learning_rate, betas=betas)


class TokenStream(Dataset):
    """Random (x, y) windows of a synthetic token stream, y shifted by one."""

    def __init__(self, n_tokens, block, vocab):
        self.data = torch.randint(0, vocab, (n_tokens,))
        self.block = block

    def __len__(self):
        return len(self.data) - self.block - 1

    def __getitem__(self, i):
        chunk = self.data[i:i + self.block + 1]
        return chunk[:-1], chunk[1:]


def build(args):
    device = "cuda" if torch.cuda.is_available() else "cpu"
    config = GPTConfig(block_size=args.block_size)
    model = GPT(config).to(device)
    optimizer = model.configure_optimizers(weight_decay, args.lr, (0.9, 0.95))
    loader = DataLoader(TokenStream(20000, args.block_size, config.vocab_size),
                        batch_size=args.batch_size, shuffle=True)
    return types.SimpleNamespace(models={"model": model}, optimizers={"optimizer": optimizer},
                                 loader=loader, device=device)


def forward_loss(s, batch):
    x, y = batch[0].to(s.device), batch[1].to(s.device)
    _, loss = s.models["model"](x, y)
    return loss


def train_step(s, batch):
    optimizer = s.optimizers["optimizer"]
    loss = forward_loss(s, batch)
    optimizer.zero_grad(set_to_none=True)
    loss.backward()
    torch.nn.utils.clip_grad_norm_(s.models["model"].parameters(), 1.0)
    optimizer.step()
    return loss.item()


def main(argv=None):
    args = parse_args(argv)
    s = build(args)
    it = 0
    while it < args.max_iters:
        for batch in s.loader:
            loss = train_step(s, batch)
            it += 1
            if it % 100 == 0:
                print(f"iter {it}: loss {loss:.4f}")
            if it >= args.max_iters or (args.max_steps and it >= args.max_steps):
                return


if __name__ == "__main__":
    main()
