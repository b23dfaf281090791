"""Parallel-residual decoders: GPT-NeoX (Pythia) and Phi (phi-1.5, phi-2), as
the estimator's interpreter runs them.

Module for module transformers 4.3x's modeling_gpt_neox.py and
modeling_phi.py with SDPA or eager attention (uses_sdpa): each block adds attention and MLP
outputs to the same input (GPT-NeoX norms each branch's input, Phi shares
one norm), every Linear has a bias, LayerNorm throughout, GELU MLP, an
untied output projection (Phi's with a bias). Rotary embeddings touch only
part of each head (rotary_pct) but hold no parameters; they are applied to
the whole head here, elementwise ops of the same size. Parameter counts
match the checkpoints (pythia-160m: 162,322,944; phi-2: 2,779,683,840).
This file is interpreted by tpf-analyze, never imported by it.
"""
import torch
import torch.nn as nn

from tpf_zoo.hf_models import ModelOutput, PreTrainedModel, build_decoder, lm_output, uses_sdpa
from tpf_zoo.hf_llama import masked_attention, rotate_half


class ParallelAttention(nn.Module):
    """GPT-NeoX's fused query_key_value, or Phi's q_proj/k_proj/v_proj, and
    the output projection `dense`."""

    def __init__(self, config, fused):
        super().__init__()
        self.hidden_size = config.hidden_size
        self.num_heads = config.num_attention_heads
        self.head_dim = self.hidden_size // self.num_heads
        self.fused = fused
        if fused:
            self.query_key_value = nn.Linear(self.hidden_size, 3 * self.hidden_size)
        else:
            self.q_proj = nn.Linear(self.hidden_size, self.hidden_size)
            self.k_proj = nn.Linear(self.hidden_size, self.hidden_size)
            self.v_proj = nn.Linear(self.hidden_size, self.hidden_size)
        self.dense = nn.Linear(self.hidden_size, self.hidden_size)
        self.sdpa = uses_sdpa(config)

    def forward(self, hidden_states, cos, sin, causal_mask):
        bsz = hidden_states.size(0)
        q_len = hidden_states.size(1)
        if self.fused:
            qkv = self.query_key_value(hidden_states).view(bsz, q_len, self.num_heads, 3 * self.head_dim)
            qkv = qkv.permute(0, 2, 1, 3)
            q, k, v = qkv.split(self.head_dim, dim=3)
        else:
            q = self.q_proj(hidden_states).view(bsz, q_len, self.num_heads, self.head_dim).transpose(1, 2)
            k = self.k_proj(hidden_states).view(bsz, q_len, self.num_heads, self.head_dim).transpose(1, 2)
            v = self.v_proj(hidden_states).view(bsz, q_len, self.num_heads, self.head_dim).transpose(1, 2)
        q = (q * cos) + (rotate_half(q) * sin)
        k = (k * cos) + (rotate_half(k) * sin)
        out = masked_attention(q, k, v, causal_mask, self.sdpa)
        out = out.transpose(1, 2).contiguous().reshape(bsz, q_len, self.hidden_size)
        return self.dense(out)


class NeoXMLP(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.dense_h_to_4h = nn.Linear(config.hidden_size, config.intermediate_size)
        self.dense_4h_to_h = nn.Linear(config.intermediate_size, config.hidden_size)
        self.act = nn.GELU()

    def forward(self, x):
        return self.dense_4h_to_h(self.act(self.dense_h_to_4h(x)))


class PhiMLP(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.fc1 = nn.Linear(config.hidden_size, config.intermediate_size)
        self.fc2 = nn.Linear(config.intermediate_size, config.hidden_size)
        self.act = nn.GELU(approximate="tanh")

    def forward(self, x):
        return self.fc2(self.act(self.fc1(x)))


class ParallelBlock(nn.Module):
    def __init__(self, config, phi):
        super().__init__()
        self.phi = phi
        self.input_layernorm = nn.LayerNorm(config.hidden_size, eps=1e-5)
        if phi:
            self.self_attn = ParallelAttention(config, False)
            self.mlp = PhiMLP(config)
        else:
            self.post_attention_layernorm = nn.LayerNorm(config.hidden_size, eps=1e-5)
            self.attention = ParallelAttention(config, True)
            self.mlp = NeoXMLP(config)

    def forward(self, hidden_states, cos, sin, causal_mask):
        if self.phi:
            x = self.input_layernorm(hidden_states)
            return hidden_states + self.self_attn(x, cos, sin, causal_mask) + self.mlp(x)
        attn = self.attention(self.input_layernorm(hidden_states), cos, sin, causal_mask)
        return hidden_states + attn + self.mlp(self.post_attention_layernorm(hidden_states))


class ParallelModel(PreTrainedModel):
    """GPTNeoXModel (embed_in, layers, final_layer_norm) or PhiModel
    (embed_tokens, layers, final_layernorm)."""

    def __init__(self, config, phi):
        super().__init__()
        self.config = config
        self.phi = phi
        emb = nn.Embedding(config.vocab_size, config.hidden_size)
        norm = nn.LayerNorm(config.hidden_size, eps=1e-5)
        if phi:
            self.embed_tokens = emb
            self.final_layernorm = norm
        else:
            self.embed_in = emb
            self.final_layer_norm = norm
        self.layers = nn.ModuleList([ParallelBlock(config, phi) for _ in range(config.num_hidden_layers)])

    def embeddings(self):
        return self.embed_tokens if self.phi else self.embed_in

    def checkpoint_units(self):
        return list(self.layers)

    def forward(self, input_ids=None, attention_mask=None, labels=None, **kwargs):
        batch = input_ids.size(0)
        seq = input_ids.size(1)
        hidden = self.embeddings()(input_ids)
        head_dim = self.config.hidden_size // self.config.num_attention_heads
        cos = torch.ones(batch, 1, seq, head_dim, dtype=hidden.dtype)
        sin = torch.ones(batch, 1, seq, head_dim, dtype=hidden.dtype)
        causal_mask = torch.zeros(batch, 1, seq, seq, dtype=hidden.dtype)
        for layer in self.layers:
            hidden = layer(hidden, cos, sin, causal_mask)
        norm = self.final_layernorm if self.phi else self.final_layer_norm
        return ModelOutput(last_hidden_state=norm(hidden))


class ParallelForCausalLM(PreTrainedModel):
    """GPTNeoXForCausalLM (gpt_neox, embed_out) or PhiForCausalLM (model,
    lm_head with a bias)."""

    def __init__(self, config, phi):
        super().__init__()
        self.config = config
        self.phi = phi
        if phi:
            self.model = ParallelModel(config, True)
            self.lm_head = nn.Linear(config.hidden_size, config.vocab_size, bias=True)
        else:
            self.gpt_neox = ParallelModel(config, False)
            self.embed_out = nn.Linear(config.hidden_size, config.vocab_size, bias=False)

    def base(self):
        return self.model if self.phi else self.gpt_neox

    def checkpoint_units(self):
        return list(self.base().layers)

    def forward(self, input_ids=None, attention_mask=None, labels=None, **kwargs):
        hidden = self.base()(input_ids).last_hidden_state
        head = self.lm_head if self.phi else self.embed_out
        logits = head(hidden).float()
        return lm_output(logits, labels, self.config.vocab_size)


def build_neox(config, head):
    return build_decoder(config, head, lambda c: ParallelModel(c, False), lambda c: ParallelForCausalLM(c, False))


def build_phi(config, head):
    return build_decoder(config, head, lambda c: ParallelModel(c, True), lambda c: ParallelForCausalLM(c, True))
