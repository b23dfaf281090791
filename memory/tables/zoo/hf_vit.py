"""ViT (google/vit-*), as the estimator's interpreter runs it.

Module for module transformers 4.3x's modeling_vit.py with SDPA (transformers 4.46's default, uses_sdpa) or eager
attention: a Conv2d patch embedding, a class token and learned positions
(one per patch and the class token), pre-LN encoder layers (query/key/value
with biases, GELU MLP), a final LayerNorm; ViTModel adds the pooler (dense
and tanh on the class token), ViTForImageClassification a classifier on the
class token instead. Parameter counts match the checkpoints
(vit-base-patch16-224: 86,567,656 with its 1,000 labels; the in21k ViTModel
86,389,248).
This file is interpreted by tpf-analyze, never imported by it.
"""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

from tpf_zoo.hf_models import ModelOutput, PreTrainedModel, cls_output, uses_sdpa


class ViTPatchEmbeddings(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.projection = nn.Conv2d(3, config.hidden_size, kernel_size=config.patch_size, stride=config.patch_size)

    def forward(self, pixel_values):
        return self.projection(pixel_values).flatten(2).transpose(1, 2)


class ViTEmbeddings(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.cls_token = nn.Parameter(torch.randn(1, 1, config.hidden_size))
        self.patch_embeddings = ViTPatchEmbeddings(config)
        patches = (config.image_size // config.patch_size) * (config.image_size // config.patch_size)
        self.position_embeddings = nn.Parameter(torch.randn(1, patches + 1, config.hidden_size))
        self.dropout = nn.Dropout(0.0)

    def forward(self, pixel_values):
        batch = pixel_values.size(0)
        x = self.patch_embeddings(pixel_values)
        cls = self.cls_token.expand(batch, -1, -1)
        x = torch.cat((cls, x), dim=1)
        return self.dropout(x + self.position_embeddings)


class ViTSelfAttention(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.num_heads = config.num_attention_heads
        self.head_dim = config.hidden_size // config.num_attention_heads
        self.query = nn.Linear(config.hidden_size, config.hidden_size)
        self.key = nn.Linear(config.hidden_size, config.hidden_size)
        self.value = nn.Linear(config.hidden_size, config.hidden_size)
        self.sdpa = uses_sdpa(config)

    def forward(self, x):
        bsz = x.size(0)
        seq = x.size(1)
        q = self.query(x).view(bsz, seq, self.num_heads, self.head_dim).transpose(1, 2)
        k = self.key(x).view(bsz, seq, self.num_heads, self.head_dim).transpose(1, 2)
        v = self.value(x).view(bsz, seq, self.num_heads, self.head_dim).transpose(1, 2)
        if self.sdpa:
            # ViTSdpaSelfAttention: no score matrix.
            out = F.scaled_dot_product_attention(q, k, v)
        else:
            scores = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(self.head_dim)
            out = torch.matmul(F.softmax(scores, dim=-1), v)
        return out.transpose(1, 2).reshape(bsz, seq, self.num_heads * self.head_dim)


class ViTDense(nn.Module):
    """ViTSelfOutput, ViTIntermediate and ViTOutput: one `dense` each."""

    def __init__(self, n_in, n_out, act):
        super().__init__()
        self.dense = nn.Linear(n_in, n_out)
        self.act = nn.GELU() if act else None

    def forward(self, x):
        x = self.dense(x)
        if self.act is not None:
            x = self.act(x)
        return x


class ViTAttention(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.attention = ViTSelfAttention(config)
        self.output = ViTDense(config.hidden_size, config.hidden_size, False)

    def forward(self, x):
        return self.output(self.attention(x))


class ViTLayer(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.layernorm_before = nn.LayerNorm(config.hidden_size, eps=1e-12)
        self.attention = ViTAttention(config)
        self.layernorm_after = nn.LayerNorm(config.hidden_size, eps=1e-12)
        self.intermediate = ViTDense(config.hidden_size, config.intermediate_size, True)
        self.output = ViTDense(config.intermediate_size, config.hidden_size, False)

    def forward(self, x):
        x = x + self.attention(self.layernorm_before(x))
        return x + self.output(self.intermediate(self.layernorm_after(x)))


class ViTModel(PreTrainedModel):
    def __init__(self, config, add_pooling_layer=True):
        super().__init__()
        self.config = config
        self.embeddings = ViTEmbeddings(config)
        self.layer = nn.ModuleList([ViTLayer(config) for _ in range(config.num_hidden_layers)])
        self.layernorm = nn.LayerNorm(config.hidden_size, eps=1e-12)
        self.pooler = ViTDense(config.hidden_size, config.hidden_size, False) if add_pooling_layer else None

    def checkpoint_units(self):
        return list(self.layer)

    def forward(self, pixel_values=None, labels=None, **kwargs):
        x = self.embeddings(pixel_values)
        for layer in self.layer:
            x = layer(x)
        x = self.layernorm(x)
        out = ModelOutput(last_hidden_state=x)
        if self.pooler is not None:
            out.pooler_output = torch.tanh(self.pooler(x[:, 0]))
        return out


class ViTForImageClassification(PreTrainedModel):
    def __init__(self, config):
        super().__init__()
        self.config = config
        self.vit = ViTModel(config, add_pooling_layer=False)
        self.classifier = nn.Linear(config.hidden_size, config.num_labels)

    def checkpoint_units(self):
        return list(self.vit.layer)

    def forward(self, pixel_values=None, labels=None, **kwargs):
        x = self.vit(pixel_values).last_hidden_state
        logits = self.classifier(x[:, 0, :])
        return cls_output(logits, labels)


def build_vit(config, head):
    if head == "cls":
        return ViTForImageClassification(config)
    return ViTModel(config)
