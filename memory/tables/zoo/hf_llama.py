"""Llama-architecture decoders (Llama 2/3, Mistral, Qwen2, TinyLlama, Phi-3,
Gemma, Gemma 2, Mixtral), as the estimator's interpreter runs them.

Module for module transformers 4.3x's modeling_llama.py, with SDPA
attention (transformers 4.46's default; Gemma 2 defaults to eager) or the
eager softmax(QK^T) under attn_implementation="eager" (uses_sdpa): RMSNorm in float32, rotary embeddings, grouped-query attention
(repeat_kv), SwiGLU MLP, float32 logits. Mistral, Qwen2 and Phi-3 differ
only in config (kv heads, qkv bias; Phi-3's fused qkv_proj and gate_up_proj
hold the same parameters), so one builder serves them; parameter counts
match the published checkpoints (Llama-2-7b: 6,738,415,616; Meta-Llama-3-8B:
8,030,261,248; Mistral-7B: 7,241,732,096; Qwen2-7B: 7,615,616,512).
config.model_type picks the variants of modeling_gemma.py (a per-head width
of its own, GELU-tanh MLP, embeddings scaled by sqrt(hidden)),
modeling_gemma2.py (four norms per layer, soft-capped logits) and
modeling_mixtral.py (a sparse mixture of experts in place of the MLP).
This file is interpreted by tpf-analyze, never imported by it.
"""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

from tpf_zoo.hf_models import ModelOutput, PreTrainedModel, build_decoder, lm_output, uses_sdpa


class RMSNorm(nn.Module):
    def __init__(self, hidden_size, eps=1e-6):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(hidden_size))
        self.variance_epsilon = eps

    def forward(self, hidden_states):
        input_dtype = hidden_states.dtype
        hidden_states = hidden_states.to(torch.float32)
        variance = hidden_states.pow(2).mean(-1, keepdim=True)
        hidden_states = hidden_states * torch.rsqrt(variance + self.variance_epsilon)
        return self.weight * hidden_states.to(input_dtype)


def rotate_half(x):
    half = x.shape[-1] // 2
    x1 = x[..., :half]
    x2 = x[..., half:]
    return torch.cat((-x2, x1), dim=-1)


def masked_attention(q, k, v, causal_mask, sdpa):
    """The attention over (batch, heads, length, head_dim) with an additive
    mask: SDPA (LlamaSdpaAttention, GPTNeoXSdpaAttention, PhiSdpaAttention)
    keeps no score matrix; eager scales, masks and takes the softmax in
    float32."""
    if sdpa:
        return F.scaled_dot_product_attention(q, k, v, attn_mask=causal_mask)
    attn = torch.matmul(q, k.transpose(2, 3)) / math.sqrt(q.size(-1))
    attn = attn + causal_mask
    attn = F.softmax(attn, dim=-1, dtype=torch.float32).to(q.dtype)
    return torch.matmul(attn, v)


class LlamaAttention(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.hidden_size = config.hidden_size
        self.num_heads = config.num_attention_heads
        self.head_dim = config.head_dim
        self.num_key_value_heads = config.num_key_value_heads
        self.num_key_value_groups = self.num_heads // self.num_key_value_heads
        bias = config.attention_bias
        self.q_proj = nn.Linear(self.hidden_size, self.num_heads * self.head_dim, bias=bias)
        self.k_proj = nn.Linear(self.hidden_size, self.num_key_value_heads * self.head_dim, bias=bias)
        self.v_proj = nn.Linear(self.hidden_size, self.num_key_value_heads * self.head_dim, bias=bias)
        self.o_proj = nn.Linear(self.num_heads * self.head_dim, self.hidden_size, bias=False)
        self.sdpa = uses_sdpa(config)

    def repeat_kv(self, x):
        n_rep = self.num_key_value_groups
        if n_rep == 1:
            return x
        b = x.shape[0]
        t = x.shape[2]
        x = x[:, :, None, :, :].expand(b, self.num_key_value_heads, n_rep, t, self.head_dim)
        return x.reshape(b, self.num_key_value_heads * n_rep, t, self.head_dim)

    def forward(self, hidden_states, cos, sin, causal_mask):
        bsz = hidden_states.size(0)
        q_len = hidden_states.size(1)
        q = self.q_proj(hidden_states).view(bsz, q_len, self.num_heads, self.head_dim).transpose(1, 2)
        k = self.k_proj(hidden_states).view(bsz, q_len, self.num_key_value_heads, self.head_dim).transpose(1, 2)
        v = self.v_proj(hidden_states).view(bsz, q_len, self.num_key_value_heads, self.head_dim).transpose(1, 2)
        q = (q * cos) + (rotate_half(q) * sin)
        k = (k * cos) + (rotate_half(k) * sin)
        k = self.repeat_kv(k)
        v = self.repeat_kv(v)
        out = masked_attention(q, k, v, causal_mask, self.sdpa)
        out = out.transpose(1, 2).contiguous().reshape(bsz, q_len, self.num_heads * self.head_dim)
        return self.o_proj(out)


class LlamaMLP(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.gate_proj = nn.Linear(config.hidden_size, config.intermediate_size, bias=False)
        self.up_proj = nn.Linear(config.hidden_size, config.intermediate_size, bias=False)
        self.down_proj = nn.Linear(config.intermediate_size, config.hidden_size, bias=False)
        if config.model_type == "gemma" or config.model_type == "gemma2":
            self.act_fn = nn.GELU(approximate="tanh")
        else:
            self.act_fn = nn.SiLU()

    def forward(self, x):
        return self.down_proj(self.act_fn(self.gate_proj(x)) * self.up_proj(x))


class MixtralExpert(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.w1 = nn.Linear(config.hidden_size, config.intermediate_size, bias=False)
        self.w2 = nn.Linear(config.intermediate_size, config.hidden_size, bias=False)
        self.w3 = nn.Linear(config.hidden_size, config.intermediate_size, bias=False)
        self.act_fn = nn.SiLU()

    def forward(self, x):
        return self.w2(self.act_fn(self.w1(x)) * self.w3(x))


class MixtralSparseMoeBlock(nn.Module):
    """Every expert's parameters; each token runs through top_k of them.

    The routing is data: the interpreter cannot follow which tokens pick
    which expert, so each expert takes an equal share of the
    (token, choice) pairs, top_k * tokens / num_experts rows, the balance
    Mixtral's router is trained towards."""

    def __init__(self, config):
        super().__init__()
        self.num_experts = config.num_local_experts
        self.top_k = config.num_experts_per_tok
        self.gate = nn.Linear(config.hidden_size, self.num_experts, bias=False)
        self.experts = nn.ModuleList([MixtralExpert(config) for _ in range(self.num_experts)])

    def forward(self, hidden_states):
        bsz = hidden_states.size(0)
        seq = hidden_states.size(1)
        hidden = hidden_states.size(2)
        flat = hidden_states.view(-1, hidden)
        router_logits = self.gate(flat)
        routing_weights = F.softmax(router_logits, dim=1, dtype=torch.float)
        parts = flat.repeat(self.top_k, 1).chunk(self.num_experts, dim=0)
        outs = [expert(part) for expert, part in zip(self.experts, parts)]
        out = torch.cat(outs, dim=0).view(self.top_k, -1, hidden).sum(0)
        return out.view(bsz, seq, hidden)


class LlamaDecoderLayer(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.self_attn = LlamaAttention(config)
        self.moe = config.model_type == "mixtral"
        if self.moe:
            self.block_sparse_moe = MixtralSparseMoeBlock(config)
        else:
            self.mlp = LlamaMLP(config)
        self.input_layernorm = RMSNorm(config.hidden_size)
        self.post_attention_layernorm = RMSNorm(config.hidden_size)
        # Gemma 2 norms both sublayers' inputs and outputs.
        self.sandwich = config.model_type == "gemma2"
        if self.sandwich:
            self.pre_feedforward_layernorm = RMSNorm(config.hidden_size)
            self.post_feedforward_layernorm = RMSNorm(config.hidden_size)

    def forward(self, hidden_states, cos, sin, causal_mask):
        if self.sandwich:
            attn = self.self_attn(self.input_layernorm(hidden_states), cos, sin, causal_mask)
            hidden_states = hidden_states + self.post_attention_layernorm(attn)
            mlp = self.mlp(self.pre_feedforward_layernorm(hidden_states))
            return hidden_states + self.post_feedforward_layernorm(mlp)
        hidden_states = hidden_states + self.self_attn(self.input_layernorm(hidden_states), cos, sin, causal_mask)
        if self.moe:
            return hidden_states + self.block_sparse_moe(self.post_attention_layernorm(hidden_states))
        return hidden_states + self.mlp(self.post_attention_layernorm(hidden_states))


class LlamaModel(PreTrainedModel):
    def __init__(self, config):
        super().__init__()
        self.config = config
        self.embed_tokens = nn.Embedding(config.vocab_size, config.hidden_size)
        self.layers = nn.ModuleList([LlamaDecoderLayer(config) for _ in range(config.num_hidden_layers)])
        self.norm = RMSNorm(config.hidden_size)
        head_dim = config.head_dim
        self.register_buffer("inv_freq", torch.arange(0, head_dim, 2, dtype=torch.float32), persistent=False)

    def checkpoint_units(self):
        return list(self.layers)

    def forward(self, input_ids=None, attention_mask=None, labels=None, **kwargs):
        batch = input_ids.size(0)
        seq = input_ids.size(1)
        hidden = self.embed_tokens(input_ids)
        if self.config.model_type == "gemma" or self.config.model_type == "gemma2":
            hidden = hidden * (self.config.hidden_size ** 0.5)
        head_dim = self.config.head_dim
        # Rotary tables and the causal mask: no graph (positions only).
        cos = torch.ones(batch, 1, seq, head_dim, dtype=hidden.dtype)
        sin = torch.ones(batch, 1, seq, head_dim, dtype=hidden.dtype)
        causal_mask = torch.zeros(batch, 1, seq, seq, dtype=hidden.dtype)
        for layer in self.layers:
            hidden = layer(hidden, cos, sin, causal_mask)
        return ModelOutput(last_hidden_state=self.norm(hidden))


class LlamaForCausalLM(PreTrainedModel):
    def __init__(self, config):
        super().__init__()
        self.config = config
        self.model = LlamaModel(config)
        self.lm_head = nn.Linear(config.hidden_size, config.vocab_size, bias=False)
        if config.tie_word_embeddings:
            self.lm_head.weight = self.model.embed_tokens.weight

    def checkpoint_units(self):
        return list(self.model.layers)

    def forward(self, input_ids=None, attention_mask=None, labels=None, **kwargs):
        hidden = self.model(input_ids).last_hidden_state
        logits = self.lm_head(hidden)
        if self.config.model_type == "gemma2":
            logits = torch.tanh(logits / 30.0) * 30.0
        logits = logits.float()
        return lm_output(logits, labels, self.config.vocab_size)


def build_llama(config, head):
    return build_decoder(config, head, LlamaModel, LlamaForCausalLM)


# Gemma, Gemma 2 and Mixtral: the same modules, told apart by
# config.model_type (set from the table's family).
build_gemma = build_llama
build_gemma2 = build_llama
build_mixtral = build_llama
