# tpf: target=t4
"""A Llama-style decoder (RMSNorm, SwiGLU MLP, grouped-query attention with
2 KV heads for 8 query heads, no biases) generating with a hand-written
decode loop and a KV cache of the 2 KV heads under torch.inference_mode().
Rotary embeddings are left out: elementwise, they change no peak. Small
enough to run on a CPU: tools/measure_infer.py measures it."""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

vocab_size = 2048
n_layer = 4
n_head = 8
n_kv_head = 2
dim = 256
hidden_dim = 688
head_dim = dim // n_head
batch_size = 16
prompt_len = 64
max_new_tokens = 448


class RMSNorm(nn.Module):
    def __init__(self, d, eps=1e-6):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(d))

    def forward(self, x):
        return self.weight * (x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps))


class Attention(nn.Module):
    def __init__(self):
        super().__init__()
        self.wq = nn.Linear(dim, n_head * head_dim, bias=False)
        self.wk = nn.Linear(dim, n_kv_head * head_dim, bias=False)
        self.wv = nn.Linear(dim, n_kv_head * head_dim, bias=False)
        self.wo = nn.Linear(n_head * head_dim, dim, bias=False)

    def forward(self, x, past):
        B, T, _ = x.shape
        q = self.wq(x).view(B, T, n_head, head_dim).transpose(1, 2)
        k = self.wk(x).view(B, T, n_kv_head, head_dim).transpose(1, 2)
        v = self.wv(x).view(B, T, n_kv_head, head_dim).transpose(1, 2)
        if past is not None:
            k = torch.cat([past[0], k], dim=2)
            v = torch.cat([past[1], v], dim=2)
        S = k.shape[2]
        rep = n_head // n_kv_head
        keys = k[:, :, None, :, :].expand(B, n_kv_head, rep, S, head_dim).reshape(B, n_head, S, head_dim)
        values = v[:, :, None, :, :].expand(B, n_kv_head, rep, S, head_dim).reshape(B, n_head, S, head_dim)
        att = torch.matmul(q, keys.transpose(2, 3)) / math.sqrt(head_dim)
        if T > 1:
            att = att + torch.triu(torch.full((T, T), float("-inf")), diagonal=1)
        att = F.softmax(att, dim=-1)
        out = torch.matmul(att, values).transpose(1, 2).reshape(B, T, n_head * head_dim)
        return self.wo(out), (k, v)


class FeedForward(nn.Module):
    def __init__(self):
        super().__init__()
        self.w1 = nn.Linear(dim, hidden_dim, bias=False)
        self.w2 = nn.Linear(hidden_dim, dim, bias=False)
        self.w3 = nn.Linear(dim, hidden_dim, bias=False)

    def forward(self, x):
        return self.w2(F.silu(self.w1(x)) * self.w3(x))


class Layer(nn.Module):
    def __init__(self):
        super().__init__()
        self.attention_norm = RMSNorm(dim)
        self.attention = Attention()
        self.ffn_norm = RMSNorm(dim)
        self.feed_forward = FeedForward()

    def forward(self, x, past):
        a, present = self.attention(self.attention_norm(x), past)
        h = x + a
        return h + self.feed_forward(self.ffn_norm(h)), present


class Llama(nn.Module):
    def __init__(self):
        super().__init__()
        self.tok_embeddings = nn.Embedding(vocab_size, dim)
        self.layers = nn.ModuleList([Layer() for _ in range(n_layer)])
        self.norm = RMSNorm(dim)
        self.output = nn.Linear(dim, vocab_size, bias=False)

    def forward(self, tokens, past=None):
        h = self.tok_embeddings(tokens)
        presents = []
        for i, layer in enumerate(self.layers):
            h, p = layer(h, None if past is None else past[i])
            presents.append(p)
        return self.output(self.norm(h)), presents


model = Llama().eval()
tokens = torch.randint(0, vocab_size, (batch_size, prompt_len))
with torch.inference_mode():
    past = None
    x = tokens
    for _ in range(max_new_tokens):
        logits, past = model(x, past)
        x = logits[:, -1, :].argmax(dim=-1, keepdim=True)
        tokens = torch.cat([tokens, x], dim=1)
print(tokens.shape)
