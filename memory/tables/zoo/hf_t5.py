"""T5 encoder-decoders (t5-small/base/large/3b, t5-v1_1, flan-t5), as the
estimator's interpreter runs them.

Module for module the eager implementation of transformers 4.3x's
modeling_t5.py: RMS layer norm without bias or mean (T5LayerNorm), relative
position buckets embedded by the first layer of each stack and shared by
the others, attention without the 1/sqrt(d) scale, a ReLU feed-forward
(t5 v1.0) or a gated-GELU one (v1.1 and flan-t5), the shared embedding,
and an LM head tied to it (v1.0, with the d_model**-0.5 rescale) or not.
Parameter counts match the published checkpoints (t5-small: 60,506,624;
t5-base: 222,903,552; flan-t5-base: 247,577,856).

One simplification, memory-neutral: the relative position bucket
arithmetic (log, min, where on integers) is replaced by an int64 zeros
tensor of the same (query, key) shape. The bucket values never change
what is allocated or saved; the embedding saves the indices either way.
This file is interpreted by tpf-analyze, never imported by it.
"""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

from tpf_zoo.hf_models import ModelOutput, NewGELUActivation, PreTrainedModel


class T5LayerNorm(nn.Module):
    def __init__(self, hidden_size, eps=1e-6):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(hidden_size))
        self.variance_epsilon = eps

    def forward(self, hidden_states):
        variance = hidden_states.to(torch.float32).pow(2).mean(-1, keepdim=True)
        hidden_states = hidden_states * torch.rsqrt(variance + self.variance_epsilon)
        if self.weight.dtype == torch.float16 or self.weight.dtype == torch.bfloat16:
            hidden_states = hidden_states.to(self.weight.dtype)
        return self.weight * hidden_states


class T5DenseActDense(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.wi = nn.Linear(config.hidden_size, config.intermediate_size, bias=False)
        self.wo = nn.Linear(config.intermediate_size, config.hidden_size, bias=False)
        self.dropout = nn.Dropout(0.1)
        self.act = nn.ReLU()

    def forward(self, hidden_states):
        hidden_states = self.dropout(self.act(self.wi(hidden_states)))
        return self.wo(hidden_states)


class T5DenseGatedActDense(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.wi_0 = nn.Linear(config.hidden_size, config.intermediate_size, bias=False)
        self.wi_1 = nn.Linear(config.hidden_size, config.intermediate_size, bias=False)
        self.wo = nn.Linear(config.intermediate_size, config.hidden_size, bias=False)
        self.dropout = nn.Dropout(0.1)
        self.act = NewGELUActivation()

    def forward(self, hidden_states):
        hidden_states = self.act(self.wi_0(hidden_states)) * self.wi_1(hidden_states)
        return self.wo(self.dropout(hidden_states))


class T5LayerFF(nn.Module):
    def __init__(self, config):
        super().__init__()
        if config.gated_ffn:
            self.DenseReluDense = T5DenseGatedActDense(config)
        else:
            self.DenseReluDense = T5DenseActDense(config)
        self.layer_norm = T5LayerNorm(config.hidden_size)
        self.dropout = nn.Dropout(0.1)

    def forward(self, hidden_states):
        forwarded = self.DenseReluDense(self.layer_norm(hidden_states))
        return hidden_states + self.dropout(forwarded)


class T5Attention(nn.Module):
    def __init__(self, config, has_relative_attention_bias):
        super().__init__()
        self.n_heads = config.num_attention_heads
        self.key_value_proj_dim = config.head_dim
        self.inner_dim = self.n_heads * self.key_value_proj_dim
        self.has_relative_attention_bias = has_relative_attention_bias
        self.q = nn.Linear(config.hidden_size, self.inner_dim, bias=False)
        self.k = nn.Linear(config.hidden_size, self.inner_dim, bias=False)
        self.v = nn.Linear(config.hidden_size, self.inner_dim, bias=False)
        self.o = nn.Linear(self.inner_dim, config.hidden_size, bias=False)
        self.dropout = nn.Dropout(0.1)
        if has_relative_attention_bias:
            self.relative_attention_bias = nn.Embedding(32, self.n_heads)

    def compute_bias(self, query_length, key_length):
        buckets = torch.zeros(query_length, key_length, dtype=torch.long)
        values = self.relative_attention_bias(buckets)
        return values.permute([2, 0, 1]).unsqueeze(0)

    def forward(self, hidden_states, mask=None, key_value_states=None, position_bias=None):
        batch_size = hidden_states.size(0)
        seq_length = hidden_states.size(1)
        source = hidden_states if key_value_states is None else key_value_states
        key_length = source.size(1)

        def shape(states):
            return states.view(batch_size, -1, self.n_heads, self.key_value_proj_dim).transpose(1, 2)

        query_states = shape(self.q(hidden_states))
        key_states = shape(self.k(source))
        value_states = shape(self.v(source))
        scores = torch.matmul(query_states, key_states.transpose(3, 2))
        if position_bias is None:
            if self.has_relative_attention_bias:
                position_bias = self.compute_bias(seq_length, key_length)
            else:
                position_bias = torch.zeros((1, self.n_heads, seq_length, key_length), dtype=scores.dtype)
            if mask is not None:
                position_bias = position_bias + mask
        scores += position_bias
        attn_weights = F.softmax(scores.float(), dim=-1).type_as(scores)
        attn_weights = self.dropout(attn_weights)
        attn_output = torch.matmul(attn_weights, value_states)
        attn_output = attn_output.transpose(1, 2).contiguous().view(batch_size, -1, self.inner_dim)
        return self.o(attn_output), position_bias


class T5LayerSelfAttention(nn.Module):
    def __init__(self, config, has_relative_attention_bias):
        super().__init__()
        self.SelfAttention = T5Attention(config, has_relative_attention_bias)
        self.layer_norm = T5LayerNorm(config.hidden_size)
        self.dropout = nn.Dropout(0.1)

    def forward(self, hidden_states, mask, position_bias):
        out, position_bias = self.SelfAttention(self.layer_norm(hidden_states), mask, None, position_bias)
        return hidden_states + self.dropout(out), position_bias


class T5LayerCrossAttention(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.EncDecAttention = T5Attention(config, False)
        self.layer_norm = T5LayerNorm(config.hidden_size)
        self.dropout = nn.Dropout(0.1)

    def forward(self, hidden_states, key_value_states, mask, position_bias):
        out, position_bias = self.EncDecAttention(self.layer_norm(hidden_states), mask, key_value_states,
                                                  position_bias)
        return hidden_states + self.dropout(out), position_bias


def clamp_fp16(hidden_states):
    # T5Block keeps fp16 activations finite (modeling_t5.py's clamp_value).
    if hidden_states.dtype == torch.float16:
        return torch.clamp(hidden_states, min=-64504.0, max=64504.0)
    return hidden_states


class T5Block(nn.Module):
    def __init__(self, config, is_decoder, has_relative_attention_bias):
        super().__init__()
        self.is_decoder = is_decoder
        self.layer = nn.ModuleList()
        self.layer.append(T5LayerSelfAttention(config, has_relative_attention_bias))
        if is_decoder:
            self.layer.append(T5LayerCrossAttention(config))
        self.layer.append(T5LayerFF(config))

    def forward(self, hidden_states, mask, position_bias, encoder_hidden_states=None, encoder_mask=None,
                encoder_position_bias=None):
        hidden_states, position_bias = self.layer[0](hidden_states, mask, position_bias)
        hidden_states = clamp_fp16(hidden_states)
        if self.is_decoder:
            hidden_states, encoder_position_bias = self.layer[1](hidden_states, encoder_hidden_states,
                                                                 encoder_mask, encoder_position_bias)
            hidden_states = clamp_fp16(hidden_states)
        hidden_states = clamp_fp16(self.layer[-1](hidden_states))
        return hidden_states, position_bias, encoder_position_bias


class T5Stack(nn.Module):
    def __init__(self, config, embed_tokens, is_decoder):
        super().__init__()
        self.embed_tokens = embed_tokens
        self.is_decoder = is_decoder
        self.block = nn.ModuleList([T5Block(config, is_decoder, i == 0) for i in range(config.num_hidden_layers)])
        self.final_layer_norm = T5LayerNorm(config.hidden_size)
        self.dropout = nn.Dropout(0.1)

    def forward(self, input_ids, encoder_hidden_states=None):
        batch = input_ids.size(0)
        seq = input_ids.size(1)
        hidden_states = self.dropout(self.embed_tokens(input_ids))
        dtype = hidden_states.dtype
        # get_extended_attention_mask: padding mask of ones, plus the causal
        # mask in the decoder; (1 - mask) * finfo.min.
        if self.is_decoder:
            seq_ids = torch.arange(seq)
            causal = seq_ids[None, None, :].repeat(batch, seq, 1) <= seq_ids[None, :, None]
            mask = (1.0 - causal[:, None, :, :].to(dtype)) * -3.4e38
            enc_len = encoder_hidden_states.size(1)
            encoder_mask = (1.0 - torch.ones(batch, enc_len)[:, None, None, :].to(dtype)) * -3.4e38
        else:
            mask = (1.0 - torch.ones(batch, seq)[:, None, None, :].to(dtype)) * -3.4e38
            encoder_mask = None
        position_bias = None
        encoder_position_bias = None
        for layer_module in self.block:
            hidden_states, position_bias, encoder_position_bias = layer_module(
                hidden_states, mask, position_bias, encoder_hidden_states, encoder_mask, encoder_position_bias)
        return self.dropout(self.final_layer_norm(hidden_states))


class T5Model(PreTrainedModel):
    def __init__(self, config, lm_head):
        super().__init__()
        self.config = config
        self.model_dim = config.hidden_size
        self.shared = nn.Embedding(config.vocab_size, config.hidden_size)
        self.encoder = T5Stack(config, self.shared, False)
        self.decoder = T5Stack(config, self.shared, True)
        self.has_lm_head = lm_head
        if lm_head:
            self.lm_head = nn.Linear(config.hidden_size, config.vocab_size, bias=False)
            if config.tie_word_embeddings:
                self.lm_head.weight = self.shared.weight

    def checkpoint_units(self):
        return list(self.encoder.block) + list(self.decoder.block)

    def forward(self, input_ids=None, attention_mask=None, labels=None, decoder_input_ids=None, **kwargs):
        encoder_out = self.encoder(input_ids)
        if decoder_input_ids is None:
            # _shift_right(labels): same shape and dtype as the labels.
            source = labels if labels is not None else input_ids
            decoder_input_ids = torch.zeros_like(source)
        sequence_output = self.decoder(decoder_input_ids, encoder_out)
        if not self.has_lm_head:
            return ModelOutput(last_hidden_state=sequence_output)
        if self.config.tie_word_embeddings:
            sequence_output = sequence_output * (self.model_dim ** -0.5)
        lm_logits = self.lm_head(sequence_output)
        loss = None
        if labels is not None:
            loss = F.cross_entropy(lm_logits.view(-1, lm_logits.size(-1)), labels.view(-1), ignore_index=-100)
        return ModelOutput(loss=loss, logits=lm_logits)


def build_t5(config, head):
    return T5Model(config, head == "lm" or head == "mlm")
