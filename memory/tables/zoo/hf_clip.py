"""CLIP (openai/clip-vit-*, and the text encoders of Stable Diffusion 1.5,
2.1 and SDXL), as the estimator's interpreter runs it.

Module for module transformers 4.46's modeling_clip.py with SDPA (its
default there) or eager attention (hf_llama's masked_attention, with an
additive mask: causal for text, zeros for vision): the text tower (token
and 77 position embeddings, pre-LN layers with q/k/v/out_proj and fc1/fc2
biased, a final LayerNorm), the vision tower (a class embedding, a
bias-free patch Conv2d, position embeddings, pre_layrnorm, the same layers,
post_layernorm on the class token) and the bias-free projections with
logit_scale. The MLP activation is quick_gelu here for every checkpoint
(OpenCLIP's gelu in SD 2.1 and SDXL's second encoder is one elementwise op
of the same size). Which class is built: CLIPModel (both towers), CLIPTextModel,
CLIPTextModelWithProjection, CLIPVisionModel, CLIPVisionModelWithProjection.
Parameter counts match the checkpoints (clip-vit-base-patch32: 151,277,313;
SD 1.5's text encoder 123,060,480; SD 2.1's 340,387,840; SDXL's
text_encoder_2 694,659,840).
This file is interpreted by tpf-analyze, never imported by it.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

from tpf_zoo.hf_llama import masked_attention
from tpf_zoo.hf_models import ModelOutput, PreTrainedModel, uses_sdpa


class CLIPAttention(nn.Module):
    def __init__(self, hidden, heads, sdpa):
        super().__init__()
        self.embed_dim = hidden
        self.num_heads = heads
        self.head_dim = hidden // heads
        self.k_proj = nn.Linear(hidden, hidden)
        self.v_proj = nn.Linear(hidden, hidden)
        self.q_proj = nn.Linear(hidden, hidden)
        self.out_proj = nn.Linear(hidden, hidden)
        self.sdpa = sdpa

    def forward(self, hidden_states, mask):
        bsz = hidden_states.size(0)
        tgt = hidden_states.size(1)
        q = self.q_proj(hidden_states).view(bsz, tgt, self.num_heads, self.head_dim).transpose(1, 2)
        k = self.k_proj(hidden_states).view(bsz, tgt, self.num_heads, self.head_dim).transpose(1, 2)
        v = self.v_proj(hidden_states).view(bsz, tgt, self.num_heads, self.head_dim).transpose(1, 2)
        out = masked_attention(q, k, v, mask, self.sdpa)
        out = out.transpose(1, 2).reshape(bsz, tgt, self.embed_dim)
        return self.out_proj(out)


class CLIPMLP(nn.Module):
    def __init__(self, hidden, inter):
        super().__init__()
        self.fc1 = nn.Linear(hidden, inter)
        self.fc2 = nn.Linear(inter, hidden)

    def forward(self, x):
        h = self.fc1(x)
        return self.fc2(h * torch.sigmoid(1.702 * h))


class CLIPEncoderLayer(nn.Module):
    def __init__(self, hidden, heads, inter, sdpa):
        super().__init__()
        self.self_attn = CLIPAttention(hidden, heads, sdpa)
        self.layer_norm1 = nn.LayerNorm(hidden, eps=1e-5)
        self.mlp = CLIPMLP(hidden, inter)
        self.layer_norm2 = nn.LayerNorm(hidden, eps=1e-5)

    def forward(self, hidden_states, mask):
        hidden_states = hidden_states + self.self_attn(self.layer_norm1(hidden_states), mask)
        return hidden_states + self.mlp(self.layer_norm2(hidden_states))


class CLIPEncoder(nn.Module):
    def __init__(self, layers, hidden, heads, inter, sdpa):
        super().__init__()
        self.layers = nn.ModuleList([CLIPEncoderLayer(hidden, heads, inter, sdpa) for _ in range(layers)])

    def forward(self, hidden_states, mask):
        for layer in self.layers:
            hidden_states = layer(hidden_states, mask)
        return hidden_states


class CLIPTextTransformer(nn.Module):
    def __init__(self, config):
        super().__init__()
        hidden = config.hidden_size
        self.token_embedding = nn.Embedding(config.vocab_size, hidden)
        self.position_embedding = nn.Embedding(config.max_position_embeddings, hidden)
        self.encoder = CLIPEncoder(config.num_hidden_layers, hidden, config.num_attention_heads,
                                   config.intermediate_size, uses_sdpa(config))
        self.final_layer_norm = nn.LayerNorm(hidden, eps=1e-5)

    def forward(self, input_ids):
        seq = input_ids.size(1)
        positions = torch.arange(0, seq, dtype=torch.long).unsqueeze(0)
        hidden = self.token_embedding(input_ids) + self.position_embedding(positions)
        # The causal mask, additive (transformers' _create_4d_causal_attention_mask).
        mask = torch.zeros(input_ids.size(0), 1, seq, seq, dtype=hidden.dtype)
        hidden = self.final_layer_norm(self.encoder(hidden, mask))
        pooled = hidden[:, 0, :]
        return hidden, pooled


class CLIPVisionTransformer(nn.Module):
    def __init__(self, config):
        super().__init__()
        hidden = config.vision_hidden_size
        self.num_patches = (config.image_size // config.patch_size) ** 2
        self.class_embedding = nn.Parameter(torch.randn(hidden))
        self.patch_embedding = nn.Conv2d(3, hidden, kernel_size=config.patch_size, stride=config.patch_size,
                                         bias=False)
        self.position_embedding = nn.Embedding(self.num_patches + 1, hidden)
        self.pre_layrnorm = nn.LayerNorm(hidden, eps=1e-5)
        self.encoder = CLIPEncoder(config.vision_num_hidden_layers, hidden, config.vision_num_attention_heads,
                                   config.vision_intermediate_size, uses_sdpa(config))
        self.post_layernorm = nn.LayerNorm(hidden, eps=1e-5)

    def forward(self, pixel_values):
        batch = pixel_values.size(0)
        patches = self.patch_embedding(pixel_values).flatten(2).transpose(1, 2)
        cls = self.class_embedding.expand(batch, 1, -1)
        hidden = torch.cat([cls, patches], dim=1)
        positions = torch.arange(0, self.num_patches + 1, dtype=torch.long).unsqueeze(0)
        hidden = self.pre_layrnorm(hidden + self.position_embedding(positions))
        hidden = self.encoder(hidden, torch.zeros(batch, 1, self.num_patches + 1, self.num_patches + 1,
                                                  dtype=hidden.dtype))
        pooled = self.post_layernorm(hidden[:, 0, :])
        return hidden, pooled


class CLIPTextModel(PreTrainedModel):
    def __init__(self, config, projection):
        super().__init__()
        self.config = config
        self.text_model = CLIPTextTransformer(config)
        self.text_projection = nn.Linear(config.hidden_size, config.projection_dim, bias=False) if projection else None

    def checkpoint_units(self):
        return list(self.text_model.encoder.layers)

    def forward(self, input_ids=None, attention_mask=None, **kwargs):
        hidden, pooled = self.text_model(input_ids)
        if self.text_projection is not None:
            pooled = self.text_projection(pooled)
        return ModelOutput(logits=pooled, last_hidden_state=hidden)


class CLIPVisionModel(PreTrainedModel):
    def __init__(self, config, projection):
        super().__init__()
        self.config = config
        self.vision_model = CLIPVisionTransformer(config)
        self.visual_projection = (nn.Linear(config.vision_hidden_size, config.projection_dim, bias=False)
                                  if projection else None)

    def checkpoint_units(self):
        return list(self.vision_model.encoder.layers)

    def forward(self, pixel_values=None, **kwargs):
        hidden, pooled = self.vision_model(pixel_values)
        if self.visual_projection is not None:
            pooled = self.visual_projection(pooled)
        return ModelOutput(logits=pooled, last_hidden_state=hidden)


class CLIPModel(PreTrainedModel):
    def __init__(self, config):
        super().__init__()
        self.config = config
        self.text_model = CLIPTextTransformer(config)
        self.vision_model = CLIPVisionTransformer(config)
        self.visual_projection = nn.Linear(config.vision_hidden_size, config.projection_dim, bias=False)
        self.text_projection = nn.Linear(config.hidden_size, config.projection_dim, bias=False)
        self.logit_scale = nn.Parameter(torch.tensor(2.6592))

    def checkpoint_units(self):
        return list(self.text_model.encoder.layers) + list(self.vision_model.encoder.layers)

    def forward(self, input_ids=None, pixel_values=None, attention_mask=None, return_loss=None, **kwargs):
        image_embeds = self.visual_projection(self.vision_model(pixel_values)[1])
        text_embeds = self.text_projection(self.text_model(input_ids)[1])
        image_embeds = image_embeds / image_embeds.norm(p=2, dim=-1, keepdim=True)
        text_embeds = text_embeds / text_embeds.norm(p=2, dim=-1, keepdim=True)
        logits_per_text = torch.matmul(text_embeds, image_embeds.t()) * self.logit_scale.exp()
        loss = None
        if return_loss:
            labels = torch.arange(0, logits_per_text.size(0), dtype=torch.long)
            loss = (F.cross_entropy(logits_per_text, labels) + F.cross_entropy(logits_per_text.t(), labels)) / 2.0
        return ModelOutput(loss=loss, logits=logits_per_text.t())


def build_clip(config, cls):
    """`cls` is the transformers class from_pretrained was called on."""
    if cls == "CLIPTextModel":
        return CLIPTextModel(config, False)
    if cls == "CLIPTextModelWithProjection":
        return CLIPTextModel(config, True)
    if cls == "CLIPVisionModel":
        return CLIPVisionModel(config, False)
    if cls == "CLIPVisionModelWithProjection":
        return CLIPVisionModel(config, True)
    return CLIPModel(config)
