# tpf: target=h100
"""A small decoder with rotary embeddings in Meta's complex form: the table is
`torch.polar(ones, angles)` (complex64, a buffer), and each attention turns its
queries and keys into complex pairs with `torch.view_as_complex`, multiplies by
the table and goes back with `torch.view_as_real(...).flatten(3)`. The forward
is followed through those views; before, the complex ops were unknown and so
was the step. torch 1.13 counts 13,383,936 parameters (untied head)."""
import torch
import torch.nn as nn
import torch.nn.functional as F

VOCAB, DIM, HEADS, LAYERS, CTX = 8192, 384, 6, 4, 512


def rope_table(head_dim, length, base=10000.0):
    inv = 1.0 / (base ** (torch.arange(0, head_dim, 2).float() / head_dim))
    angles = torch.outer(torch.arange(length).float(), inv)
    return torch.polar(torch.ones_like(angles), angles)


def rotate(x, table):
    pairs = torch.view_as_complex(x.float().reshape(*x.shape[:-1], -1, 2))
    table = table[: x.shape[1]].view(1, x.shape[1], 1, pairs.shape[-1])
    return torch.view_as_real(pairs * table).flatten(3).type_as(x)


class Attention(nn.Module):
    def __init__(self):
        super().__init__()
        self.qkv = nn.Linear(DIM, 3 * DIM, bias=False)
        self.out = nn.Linear(DIM, DIM, bias=False)

    def forward(self, x, table):
        b, t, _ = x.shape
        q, k, v = self.qkv(x).view(b, t, 3, HEADS, DIM // HEADS).unbind(2)
        q, k = rotate(q, table), rotate(k, table)
        y = F.scaled_dot_product_attention(q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2), is_causal=True)
        return self.out(y.transpose(1, 2).reshape(b, t, DIM))


class Layer(nn.Module):
    def __init__(self):
        super().__init__()
        self.n1, self.n2 = nn.LayerNorm(DIM), nn.LayerNorm(DIM)
        self.attn = Attention()
        self.ff = nn.Sequential(nn.Linear(DIM, 4 * DIM), nn.GELU(), nn.Linear(4 * DIM, DIM))

    def forward(self, x, table):
        x = x + self.attn(self.n1(x), table)
        return x + self.ff(self.n2(x))


class Decoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(VOCAB, DIM)
        self.layers = nn.ModuleList(Layer() for _ in range(LAYERS))
        self.norm = nn.LayerNorm(DIM)
        self.head = nn.Linear(DIM, VOCAB, bias=False)
        self.register_buffer("table", rope_table(DIM // HEADS, CTX), persistent=False)

    def forward(self, idx):
        x = self.embed(idx)
        for layer in self.layers:
            x = layer(x, self.table)
        return self.head(self.norm(x))


model = Decoder().cuda()
opt = torch.optim.AdamW(model.parameters(), lr=3e-4)
for step in range(100):
    idx = torch.randint(0, VOCAB, (16, CTX + 1), device="cuda")
    logits = model(idx[:, :-1])
    loss = F.cross_entropy(logits.reshape(-1, VOCAB), idx[:, 1:].reshape(-1))
    loss.backward()
    opt.step()
    opt.zero_grad(set_to_none=True)
