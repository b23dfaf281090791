"""BLOOM (bigscience/bloom*, bloomz*), as the estimator's interpreter runs it.

Module for module transformers 4.46's modeling_bloom.py: token embeddings
followed by their own LayerNorm (word_embeddings_layernorm), no position
embeddings (ALiBi biases the scores and holds no parameters), pre-LN blocks
with a fused query_key_value and every Linear biased, a GELU MLP of 4 *
hidden, a final ln_f and the LM head tied to the embedding. BloomAttention
is the only attention class (no SDPA in 4.46): the score matrix is
materialized (baddbmm with the ALiBi bias, softmax in float32 upcast).
Parameter counts match the checkpoints (bloom-560m: 559,214,592;
bloom-7b1: 7,069,016,064).
This file is interpreted by tpf-analyze, never imported by it.
"""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

from tpf_zoo.hf_models import ModelOutput, PreTrainedModel, build_decoder, lm_output


class BloomAttention(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.hidden_size = config.hidden_size
        self.num_heads = config.num_attention_heads
        self.head_dim = self.hidden_size // self.num_heads
        self.query_key_value = nn.Linear(self.hidden_size, 3 * self.hidden_size, bias=True)
        self.dense = nn.Linear(self.hidden_size, self.hidden_size)
        self.attention_dropout = nn.Dropout(0.0)

    def forward(self, hidden_states, alibi):
        bsz = hidden_states.size(0)
        q_len = hidden_states.size(1)
        qkv = self.query_key_value(hidden_states).view(bsz, q_len, self.num_heads, 3, self.head_dim)
        q = qkv[..., 0, :].transpose(1, 2)
        k = qkv[..., 1, :].transpose(1, 2)
        v = qkv[..., 2, :].transpose(1, 2)
        scores = torch.matmul(q, k.transpose(2, 3)) * (1.0 / math.sqrt(self.head_dim)) + alibi
        probs = F.softmax(scores, dim=-1, dtype=torch.float32).to(q.dtype)
        out = torch.matmul(self.attention_dropout(probs), v)
        out = out.transpose(1, 2).reshape(bsz, q_len, self.hidden_size)
        return self.dense(out)


class BloomMLP(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.dense_h_to_4h = nn.Linear(config.hidden_size, 4 * config.hidden_size)
        self.dense_4h_to_h = nn.Linear(4 * config.hidden_size, config.hidden_size)

    def forward(self, x):
        return self.dense_4h_to_h(F.gelu(self.dense_h_to_4h(x), approximate="tanh"))


class BloomBlock(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.input_layernorm = nn.LayerNorm(config.hidden_size, eps=1e-5)
        self.self_attention = BloomAttention(config)
        self.post_attention_layernorm = nn.LayerNorm(config.hidden_size, eps=1e-5)
        self.mlp = BloomMLP(config)

    def forward(self, hidden_states, alibi):
        hidden_states = hidden_states + self.self_attention(self.input_layernorm(hidden_states), alibi)
        return hidden_states + self.mlp(self.post_attention_layernorm(hidden_states))


class BloomModel(PreTrainedModel):
    def __init__(self, config):
        super().__init__()
        self.config = config
        self.word_embeddings = nn.Embedding(config.vocab_size, config.hidden_size)
        self.word_embeddings_layernorm = nn.LayerNorm(config.hidden_size, eps=1e-5)
        self.h = nn.ModuleList([BloomBlock(config) for _ in range(config.num_hidden_layers)])
        self.ln_f = nn.LayerNorm(config.hidden_size, eps=1e-5)

    def checkpoint_units(self):
        return list(self.h)

    def forward(self, input_ids=None, attention_mask=None, labels=None, **kwargs):
        batch = input_ids.size(0)
        seq = input_ids.size(1)
        hidden = self.word_embeddings_layernorm(self.word_embeddings(input_ids))
        alibi = torch.zeros(batch, self.config.num_attention_heads, 1, seq, dtype=hidden.dtype)
        for block in self.h:
            hidden = block(hidden, alibi)
        return ModelOutput(last_hidden_state=self.ln_f(hidden))


class BloomForCausalLM(PreTrainedModel):
    def __init__(self, config):
        super().__init__()
        self.config = config
        self.transformer = BloomModel(config)
        self.lm_head = nn.Linear(config.hidden_size, config.vocab_size, bias=False)
        self.lm_head.weight = self.transformer.word_embeddings.weight

    def checkpoint_units(self):
        return list(self.transformer.h)

    def forward(self, input_ids=None, attention_mask=None, labels=None, **kwargs):
        hidden = self.transformer(input_ids).last_hidden_state
        logits = self.lm_head(hidden)
        return lm_output(logits, labels, self.config.vocab_size)


def build_bloom(config, head):
    return build_decoder(config, head, BloomModel, BloomForCausalLM)
