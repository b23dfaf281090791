"""OPT (facebook/opt-*), as the estimator's interpreter runs it.

Module for module transformers 4.3x's modeling_opt.py with SDPA (transformers 4.46's default, uses_sdpa) or eager
attention: learned positions with OPT's offset of 2 rows, pre-LN decoder
layers (q/k/v/out_proj and fc1/fc2 with biases, ReLU), a final LayerNorm,
the LM head tied to the token embedding. opt-350m (family "opt350") is the
odd one: post-LN layers without the final norm, and 512-wide token
embeddings projected in and out of the 1024-wide layers (project_in,
project_out; word_embed_proj_dim). Parameter counts match the checkpoints
(opt-125m: 125,239,296; opt-350m: 331,196,416; opt-1.3b: 1,315,758,080).
This file is interpreted by tpf-analyze, never imported by it.
"""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

from tpf_zoo.hf_models import ModelOutput, PreTrainedModel, build_decoder, lm_output, uses_sdpa


class OPTAttention(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.embed_dim = config.hidden_size
        self.num_heads = config.num_attention_heads
        self.head_dim = self.embed_dim // self.num_heads
        self.k_proj = nn.Linear(self.embed_dim, self.embed_dim)
        self.v_proj = nn.Linear(self.embed_dim, self.embed_dim)
        self.q_proj = nn.Linear(self.embed_dim, self.embed_dim)
        self.out_proj = nn.Linear(self.embed_dim, self.embed_dim)
        self.sdpa = uses_sdpa(config)

    def forward(self, hidden_states, causal_mask):
        bsz = hidden_states.size(0)
        tgt = hidden_states.size(1)
        q = self.q_proj(hidden_states) * (self.head_dim ** -0.5)
        q = q.view(bsz, tgt, self.num_heads, self.head_dim).transpose(1, 2)
        k = self.k_proj(hidden_states).view(bsz, tgt, self.num_heads, self.head_dim).transpose(1, 2)
        v = self.v_proj(hidden_states).view(bsz, tgt, self.num_heads, self.head_dim).transpose(1, 2)
        if self.sdpa:
            # OPTSdpaAttention: no score matrix (the query is already scaled).
            out = F.scaled_dot_product_attention(q, k, v, attn_mask=causal_mask, scale=1.0)
        else:
            attn = torch.matmul(q, k.transpose(2, 3)) + causal_mask
            attn = F.softmax(attn, dim=-1)
            out = torch.matmul(attn, v)
        out = out.transpose(1, 2).reshape(bsz, tgt, self.embed_dim)
        return self.out_proj(out)


class OPTDecoderLayer(nn.Module):
    def __init__(self, config, pre_ln):
        super().__init__()
        self.pre_ln = pre_ln
        self.self_attn = OPTAttention(config)
        self.self_attn_layer_norm = nn.LayerNorm(config.hidden_size)
        self.fc1 = nn.Linear(config.hidden_size, config.intermediate_size)
        self.fc2 = nn.Linear(config.intermediate_size, config.hidden_size)
        self.final_layer_norm = nn.LayerNorm(config.hidden_size)
        self.dropout = nn.Dropout(0.1)

    def forward(self, hidden_states, causal_mask):
        residual = hidden_states
        if self.pre_ln:
            hidden_states = self.self_attn_layer_norm(hidden_states)
        hidden_states = residual + self.dropout(self.self_attn(hidden_states, causal_mask))
        if not self.pre_ln:
            hidden_states = self.self_attn_layer_norm(hidden_states)
        residual = hidden_states
        if self.pre_ln:
            hidden_states = self.final_layer_norm(hidden_states)
        hidden_states = self.dropout(self.fc2(F.relu(self.fc1(hidden_states))))
        hidden_states = residual + hidden_states
        if not self.pre_ln:
            hidden_states = self.final_layer_norm(hidden_states)
        return hidden_states


class OPTDecoder(PreTrainedModel):
    def __init__(self, config):
        super().__init__()
        self.config = config
        small = config.model_type == "opt350"
        word_dim = 512 if small else config.hidden_size
        self.embed_tokens = nn.Embedding(config.vocab_size, word_dim, padding_idx=1)
        self.embed_positions = nn.Embedding(config.max_position_embeddings + 2, config.hidden_size)
        self.project_in = nn.Linear(word_dim, config.hidden_size, bias=False) if small else None
        self.project_out = nn.Linear(config.hidden_size, word_dim, bias=False) if small else None
        self.final_layer_norm = None if small else nn.LayerNorm(config.hidden_size)
        self.layers = nn.ModuleList([OPTDecoderLayer(config, not small) for _ in range(config.num_hidden_layers)])

    def checkpoint_units(self):
        return list(self.layers)

    def forward(self, input_ids=None, attention_mask=None, labels=None, **kwargs):
        batch = input_ids.size(0)
        seq = input_ids.size(1)
        hidden = self.embed_tokens(input_ids)
        if self.project_in is not None:
            hidden = self.project_in(hidden)
        positions = torch.arange(0, seq, dtype=torch.long).unsqueeze(0) + 2
        hidden = hidden + self.embed_positions(positions)
        causal_mask = torch.zeros(batch, 1, seq, seq, dtype=hidden.dtype)
        for layer in self.layers:
            hidden = layer(hidden, causal_mask)
        if self.final_layer_norm is not None:
            hidden = self.final_layer_norm(hidden)
        if self.project_out is not None:
            hidden = self.project_out(hidden)
        return ModelOutput(last_hidden_state=hidden)


class OPTModel(PreTrainedModel):
    def __init__(self, config):
        super().__init__()
        self.config = config
        self.decoder = OPTDecoder(config)

    def checkpoint_units(self):
        return list(self.decoder.layers)

    def forward(self, input_ids=None, attention_mask=None, labels=None, **kwargs):
        return self.decoder(input_ids)


class OPTForCausalLM(PreTrainedModel):
    def __init__(self, config):
        super().__init__()
        self.config = config
        self.model = OPTModel(config)
        word_dim = 512 if config.model_type == "opt350" else config.hidden_size
        self.lm_head = nn.Linear(word_dim, config.vocab_size, bias=False)
        self.lm_head.weight = self.model.decoder.embed_tokens.weight

    def checkpoint_units(self):
        return list(self.model.decoder.layers)

    def forward(self, input_ids=None, attention_mask=None, labels=None, **kwargs):
        hidden = self.model(input_ids).last_hidden_state
        logits = self.lm_head(hidden)
        return lm_output(logits, labels, self.config.vocab_size)


def build_opt(config, head):
    return build_decoder(config, head, OPTModel, OPTForCausalLM)


build_opt350 = build_opt
