"""Whisper (openai/whisper-*), as the estimator's interpreter runs it.

Module for module transformers 4.3x's modeling_whisper.py with SDPA (transformers 4.46's default, uses_sdpa) or eager
attention: the encoder's two Conv1d over the log-mel features (the second
halves the 3,000 frames), its sinusoidal positions (an Embedding of 1,500
rows transformers freezes), pre-LN layers; the decoder's token and learned
position embeddings, pre-LN layers with self- and cross-attention; k_proj
has no bias; proj_out is tied to the token embedding. Parameter counts
match the checkpoints (whisper-tiny: 37,760,640; whisper-small:
241,734,912). forward takes input_features and labels (decoder inputs are
the labels, as transformers shifts them).
This file is interpreted by tpf-analyze, never imported by it.
"""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

from tpf_zoo.hf_models import ModelOutput, PreTrainedModel, lm_output, uses_sdpa


class WhisperAttention(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.embed_dim = config.hidden_size
        self.num_heads = config.num_attention_heads
        self.head_dim = self.embed_dim // self.num_heads
        self.k_proj = nn.Linear(self.embed_dim, self.embed_dim, bias=False)
        self.v_proj = nn.Linear(self.embed_dim, self.embed_dim)
        self.q_proj = nn.Linear(self.embed_dim, self.embed_dim)
        self.out_proj = nn.Linear(self.embed_dim, self.embed_dim)
        self.sdpa = uses_sdpa(config)

    def forward(self, hidden_states, key_value_states=None):
        bsz = hidden_states.size(0)
        tgt = hidden_states.size(1)
        kv = hidden_states if key_value_states is None else key_value_states
        src = kv.size(1)
        q = (self.q_proj(hidden_states) * (self.head_dim ** -0.5)).view(bsz, tgt, self.num_heads, self.head_dim)
        k = self.k_proj(kv).view(bsz, src, self.num_heads, self.head_dim).transpose(1, 2)
        v = self.v_proj(kv).view(bsz, src, self.num_heads, self.head_dim).transpose(1, 2)
        if self.sdpa:
            # WhisperSdpaAttention: no score matrix (the query is already scaled).
            out = F.scaled_dot_product_attention(q.transpose(1, 2), k, v, scale=1.0)
        else:
            attn = F.softmax(torch.matmul(q.transpose(1, 2), k.transpose(2, 3)), dim=-1)
            out = torch.matmul(attn, v)
        out = out.transpose(1, 2).reshape(bsz, tgt, self.embed_dim)
        return self.out_proj(out)


class WhisperLayer(nn.Module):
    def __init__(self, config, cross):
        super().__init__()
        self.self_attn = WhisperAttention(config)
        self.self_attn_layer_norm = nn.LayerNorm(config.hidden_size)
        self.cross = cross
        if cross:
            self.encoder_attn = WhisperAttention(config)
            self.encoder_attn_layer_norm = nn.LayerNorm(config.hidden_size)
        self.fc1 = nn.Linear(config.hidden_size, config.intermediate_size)
        self.fc2 = nn.Linear(config.intermediate_size, config.hidden_size)
        self.final_layer_norm = nn.LayerNorm(config.hidden_size)

    def forward(self, hidden_states, encoder_hidden_states=None):
        hidden_states = hidden_states + self.self_attn(self.self_attn_layer_norm(hidden_states))
        if self.cross:
            x = self.encoder_attn_layer_norm(hidden_states)
            hidden_states = hidden_states + self.encoder_attn(x, encoder_hidden_states)
        return hidden_states + self.fc2(F.gelu(self.fc1(self.final_layer_norm(hidden_states))))


class WhisperEncoder(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.conv1 = nn.Conv1d(config.num_mel_bins, config.hidden_size, kernel_size=3, padding=1)
        self.conv2 = nn.Conv1d(config.hidden_size, config.hidden_size, kernel_size=3, stride=2, padding=1)
        self.embed_positions = nn.Embedding(1500, config.hidden_size)
        self.embed_positions.requires_grad_(False)
        self.layers = nn.ModuleList([WhisperLayer(config, False) for _ in range(config.num_hidden_layers)])
        self.layer_norm = nn.LayerNorm(config.hidden_size)

    def forward(self, input_features):
        x = F.gelu(self.conv1(input_features))
        x = F.gelu(self.conv2(x)).permute(0, 2, 1)
        x = x + self.embed_positions.weight[: x.size(1)]
        for layer in self.layers:
            x = layer(x)
        return self.layer_norm(x)


class WhisperDecoder(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.embed_tokens = nn.Embedding(config.vocab_size, config.hidden_size)
        self.embed_positions = nn.Embedding(config.max_position_embeddings, config.hidden_size)
        self.layers = nn.ModuleList([WhisperLayer(config, True) for _ in range(config.decoder_layers)])
        self.layer_norm = nn.LayerNorm(config.hidden_size)

    def forward(self, input_ids, encoder_hidden_states):
        seq = input_ids.size(1)
        positions = torch.arange(0, seq, dtype=torch.long).unsqueeze(0)
        x = self.embed_tokens(input_ids) + self.embed_positions(positions)
        for layer in self.layers:
            x = layer(x, encoder_hidden_states)
        return self.layer_norm(x)


class WhisperModel(PreTrainedModel):
    def __init__(self, config):
        super().__init__()
        self.config = config
        self.encoder = WhisperEncoder(config)
        self.decoder = WhisperDecoder(config)

    def checkpoint_units(self):
        return list(self.encoder.layers) + list(self.decoder.layers)

    def forward(self, input_features=None, decoder_input_ids=None, labels=None, **kwargs):
        enc = self.encoder(input_features)
        ids = decoder_input_ids if decoder_input_ids is not None else labels
        return ModelOutput(last_hidden_state=self.decoder(ids, enc))


class WhisperForConditionalGeneration(PreTrainedModel):
    def __init__(self, config):
        super().__init__()
        self.config = config
        self.model = WhisperModel(config)
        self.proj_out = nn.Linear(config.hidden_size, config.vocab_size, bias=False)
        self.proj_out.weight = self.model.decoder.embed_tokens.weight

    def checkpoint_units(self):
        return self.model.checkpoint_units()

    def forward(self, input_features=None, decoder_input_ids=None, labels=None, **kwargs):
        hidden = self.model(input_features, decoder_input_ids, labels).last_hidden_state
        return lm_output(self.proj_out(hidden), labels, self.config.vocab_size)


def build_whisper(config, head):
    if head == "base":
        return WhisperModel(config)
    return WhisperForConditionalGeneration(config)
