"""Stable Diffusion's UNet, diffusers' UNet2DConditionModel, as the
estimator's interpreter runs it.

Module for module diffusers 0.40.0.dev0 (huggingface/diffusers commit
58eb52c): models/unets/unet_2d_condition.py (the positional time embedding,
SDXL's "text_time" added embedding, per-block transformer_layers_per_block),
unet_2d_blocks.py (CrossAttnDownBlock2D, CrossAttnUpBlock2D,
UNetMidBlock2DCrossAttn),
transformers/transformer_2d.py (the continuous-input Transformer2DModel: group
norm, 1x1 conv or linear projection), attention.py (BasicTransformerBlock with
layer norms, self- and cross-attention and the GEGLU FeedForward),
attention_processor.py (Attention without q/k/v biases, AttnProcessor2_0's
SDPA). The VAE is hf_diffusers_vae.py. The blocks UNet2DModel shares
(ResnetBlock2D, Downsample2D, Upsample2D, DownBlock2D, UpBlock2D,
UNetMidBlock2D, the spatial Attention) are hf_diffusers.py's. What is not
built (dual cross-attention, class or image embeddings, other attention
types) is a blocking unknown that names the argument.
This file is interpreted by tpf-analyze, never imported by it.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

from tpf_zoo.hf_diffusers import (BaseOutput, DiffusersConfig, DownBlock2D, Downsample2D, ModelMixin, ResnetBlock2D,
                                  TimestepEmbedding, Timesteps, UNetMidBlock2D, UpBlock2D, Upsample2D, check_built,
                                  multi_head_sdpa, not_built)


def per_block(value, n):
    """An int (or None) for every block, or the per-block tuple as given."""
    if value is None or isinstance(value, (int, bool, float)):
        return [value] * n
    return list(value)


class CrossAttention(nn.Module):
    """attention_processor.py's Attention as BasicTransformerBlock builds it:
    no q/k/v bias (attention_bias=False), a biased output projection; keys
    and values from encoder_hidden_states when it is given."""

    def __init__(self, query_dim, cross_attention_dim, heads, dim_head, bias=False):
        super().__init__()
        inner = heads * dim_head
        kv_dim = cross_attention_dim if cross_attention_dim is not None else query_dim
        self.heads = heads
        self.to_q = nn.Linear(query_dim, inner, bias=bias)
        self.to_k = nn.Linear(kv_dim, inner, bias=bias)
        self.to_v = nn.Linear(kv_dim, inner, bias=bias)
        self.to_out = nn.ModuleList([nn.Linear(inner, query_dim), nn.Dropout(0.0)])

    def forward(self, hidden_states, encoder_hidden_states=None, attention_mask=None, **kwargs):
        if encoder_hidden_states is None:
            encoder_hidden_states = hidden_states
        out = multi_head_sdpa(self.to_q(hidden_states), self.to_k(encoder_hidden_states),
                              self.to_v(encoder_hidden_states), self.heads)
        return self.to_out[1](self.to_out[0](out))


class GEGLU(nn.Module):
    def __init__(self, dim_in, dim_out):
        super().__init__()
        self.proj = nn.Linear(dim_in, dim_out * 2)

    def forward(self, hidden_states):
        hidden_states, gate = self.proj(hidden_states).chunk(2, dim=-1)
        return hidden_states * F.gelu(gate)


class FeedForward(nn.Module):
    def __init__(self, dim, dropout):
        super().__init__()
        inner = dim * 4
        self.net = nn.ModuleList([GEGLU(dim, inner), nn.Dropout(dropout), nn.Linear(inner, dim)])

    def forward(self, hidden_states):
        for module in self.net:
            hidden_states = module(hidden_states)
        return hidden_states


class BasicTransformerBlock(nn.Module):
    """norm_type="layer_norm": self-attention (cross-attention instead when
    only_cross_attention), cross-attention on the text, GEGLU feed-forward,
    each behind a LayerNorm and added to the residual."""

    def __init__(self, dim, heads, dim_head, dropout, cross_attention_dim, only_cross_attention):
        super().__init__()
        self.only_cross_attention = only_cross_attention
        self.norm1 = nn.LayerNorm(dim, eps=1e-5)
        self.attn1 = CrossAttention(dim, cross_attention_dim if only_cross_attention else None, heads, dim_head)
        self.norm2 = None
        self.attn2 = None
        if cross_attention_dim is not None:
            self.norm2 = nn.LayerNorm(dim, eps=1e-5)
            self.attn2 = CrossAttention(dim, cross_attention_dim, heads, dim_head)
        self.norm3 = nn.LayerNorm(dim, eps=1e-5)
        self.ff = FeedForward(dim, dropout)

    def forward(self, hidden_states, encoder_hidden_states=None, attention_mask=None, encoder_attention_mask=None):
        norm = self.norm1(hidden_states)
        context = encoder_hidden_states if self.only_cross_attention else None
        hidden_states = self.attn1(norm, encoder_hidden_states=context) + hidden_states
        if self.attn2 is not None:
            hidden_states = self.attn2(self.norm2(hidden_states), encoder_hidden_states=encoder_hidden_states) + \
                hidden_states
        return self.ff(self.norm3(hidden_states)) + hidden_states


class Transformer2DModel(nn.Module):
    """The continuous-input Transformer2DModel: the feature map as a
    sequence of height * width tokens through num_layers blocks. Called by
    the blocks only, it returns the tensor (diffusers: a 1-tuple)."""

    def __init__(self, heads, dim_head, in_channels, num_layers, cross_attention_dim, norm_num_groups,
                 use_linear_projection, only_cross_attention, dropout):
        super().__init__()
        inner = heads * dim_head
        self.use_linear_projection = use_linear_projection
        self.norm = nn.GroupNorm(num_groups=norm_num_groups, num_channels=in_channels, eps=1e-6, affine=True)
        if use_linear_projection:
            self.proj_in = nn.Linear(in_channels, inner)
        else:
            self.proj_in = nn.Conv2d(in_channels, inner, kernel_size=1, stride=1, padding=0)
        self.transformer_blocks = nn.ModuleList([
            BasicTransformerBlock(inner, heads, dim_head, dropout, cross_attention_dim, only_cross_attention)
            for _ in range(num_layers)])
        if use_linear_projection:
            self.proj_out = nn.Linear(inner, in_channels)
        else:
            self.proj_out = nn.Conv2d(inner, in_channels, kernel_size=1, stride=1, padding=0)

    def checkpoint_units(self):
        return list(self.transformer_blocks)

    def forward(self, hidden_states, encoder_hidden_states=None):
        batch, _, height, width = hidden_states.shape
        residual = hidden_states
        hidden_states = self.norm(hidden_states)
        if not self.use_linear_projection:
            hidden_states = self.proj_in(hidden_states)
        inner = hidden_states.shape[1]
        hidden_states = hidden_states.permute(0, 2, 3, 1).reshape(batch, height * width, inner)
        if self.use_linear_projection:
            hidden_states = self.proj_in(hidden_states)
            inner = hidden_states.shape[-1]
        for block in self.transformer_blocks:
            hidden_states = block(hidden_states, encoder_hidden_states=encoder_hidden_states)
        if self.use_linear_projection:
            hidden_states = self.proj_out(hidden_states)
            hidden_states = hidden_states.reshape(batch, height, width, -1).permute(0, 3, 1, 2).contiguous()
        else:
            hidden_states = hidden_states.reshape(batch, height, width, inner).permute(0, 3, 1, 2).contiguous()
            hidden_states = self.proj_out(hidden_states)
        return hidden_states + residual


def cross_attentions(num_layers, transformer_layers, heads, channels, cross_attention_dim, groups,
                     use_linear_projection, only_cross_attention, dropout):
    """A cross-attention block's Transformer2DModel per resnet."""
    layers = per_block(transformer_layers, num_layers)
    return nn.ModuleList([
        Transformer2DModel(heads, channels // heads, channels, layers[i], cross_attention_dim, groups,
                           use_linear_projection, only_cross_attention, dropout) for i in range(num_layers)])


class CrossAttnDownBlock2D(DownBlock2D):
    def __init__(self, num_layers, transformer_layers, in_channels, out_channels, temb_channels, add_downsample, eps,
                 groups, heads, cross_attention_dim, padding, use_linear_projection, only_cross_attention, dropout):
        super().__init__(False, num_layers, in_channels, out_channels, temb_channels, add_downsample, eps, groups, 1,
                         padding, dropout)
        self.attentions = cross_attentions(num_layers, transformer_layers, heads, out_channels, cross_attention_dim,
                                           groups, use_linear_projection, only_cross_attention, dropout)


class CrossAttnUpBlock2D(UpBlock2D):
    def __init__(self, num_layers, transformer_layers, in_channels, prev_output_channel, out_channels, temb_channels,
                 add_upsample, eps, groups, heads, cross_attention_dim, use_linear_projection, only_cross_attention,
                 dropout):
        super().__init__(False, num_layers, in_channels, prev_output_channel, out_channels, temb_channels,
                         add_upsample, eps, groups, 1, dropout)
        self.attentions = cross_attentions(num_layers, transformer_layers, heads, out_channels, cross_attention_dim,
                                           groups, use_linear_projection, only_cross_attention, dropout)


class UNetMidBlock2DCrossAttn(UNetMidBlock2D):
    def __init__(self, in_channels, temb_channels, transformer_layers, eps, groups, heads, output_scale_factor,
                 cross_attention_dim, use_linear_projection, dropout):
        super().__init__(in_channels, temb_channels, eps, groups, 1, False, output_scale_factor, dropout)
        self.attentions = cross_attentions(1, transformer_layers, heads, in_channels, cross_attention_dim, groups,
                                           use_linear_projection, False, dropout)


class UNet2DConditionModel(ModelMixin):
    """UNet2DConditionModel with its own defaults (SD 1.x's architecture) for
    every argument the caller leaves out."""

    def __init__(self, sample_size=None, in_channels=4, out_channels=4, center_input_sample=False,
                 flip_sin_to_cos=True, freq_shift=0,
                 down_block_types=("CrossAttnDownBlock2D", "CrossAttnDownBlock2D", "CrossAttnDownBlock2D",
                                   "DownBlock2D"),
                 mid_block_type="UNetMidBlock2DCrossAttn",
                 up_block_types=("UpBlock2D", "CrossAttnUpBlock2D", "CrossAttnUpBlock2D", "CrossAttnUpBlock2D"),
                 only_cross_attention=False, block_out_channels=(320, 640, 1280, 1280), layers_per_block=2,
                 downsample_padding=1, mid_block_scale_factor=1, dropout=0.0, act_fn="silu", norm_num_groups=32,
                 norm_eps=1e-5, cross_attention_dim=1280, transformer_layers_per_block=1,
                 reverse_transformer_layers_per_block=None, encoder_hid_dim=None, encoder_hid_dim_type=None,
                 attention_head_dim=8, num_attention_heads=None, dual_cross_attention=False,
                 use_linear_projection=False, class_embed_type=None, addition_embed_type=None,
                 addition_time_embed_dim=None, num_class_embeds=None, upcast_attention=False,
                 resnet_time_scale_shift="default", time_embedding_type="positional", time_embedding_dim=None,
                 time_cond_proj_dim=None, conv_in_kernel=3, conv_out_kernel=3,
                 projection_class_embeddings_input_dim=None, attention_type="default", class_embeddings_concat=False,
                 **kwargs):
        super().__init__()
        check_built("UNet2DConditionModel", (("dual_cross_attention", dual_cross_attention, False),
                                             ("class_embed_type", class_embed_type, None),
                                             ("encoder_hid_dim", encoder_hid_dim, None),
                                             ("encoder_hid_dim_type", encoder_hid_dim_type, None),
                                             ("resnet_time_scale_shift", resnet_time_scale_shift, "default"),
                                             ("time_embedding_type", time_embedding_type, "positional"),
                                             ("attention_type", attention_type, "default"),
                                             ("class_embeddings_concat", class_embeddings_concat, False),
                                             ("time_cond_proj_dim", time_cond_proj_dim, None)))
        if addition_embed_type not in (None, "text_time"):
            not_built("UNet2DConditionModel(addition_embed_type=...)")
        n = len(down_block_types)
        self.config = DiffusersConfig(sample_size=sample_size, in_channels=in_channels, out_channels=out_channels,
                                      cross_attention_dim=cross_attention_dim, block_out_channels=block_out_channels,
                                      addition_embed_type=addition_embed_type)
        self.center_input_sample = center_input_sample
        self.addition_embed_type = addition_embed_type
        # diffusers' naming issue (#2011): attention_head_dim is the number
        # of heads.
        heads = per_block(num_attention_heads or attention_head_dim, n)
        cross = per_block(cross_attention_dim, n)
        layers = per_block(layers_per_block, n)
        transformer_layers = per_block(transformer_layers_per_block, n)
        only_cross = per_block(only_cross_attention, n)
        time_embed_dim = time_embedding_dim or block_out_channels[0] * 4
        self.conv_in = nn.Conv2d(in_channels, block_out_channels[0], kernel_size=conv_in_kernel,
                                 padding=(conv_in_kernel - 1) // 2)
        self.time_proj = Timesteps(block_out_channels[0])
        self.time_embedding = TimestepEmbedding(block_out_channels[0], time_embed_dim)
        self.class_embedding = None
        if num_class_embeds is not None:
            self.class_embedding = nn.Embedding(num_class_embeds, time_embed_dim)
        if addition_embed_type == "text_time":
            self.add_time_proj = Timesteps(addition_time_embed_dim)
            self.add_embedding = TimestepEmbedding(projection_class_embeddings_input_dim, time_embed_dim)
        self.down_blocks = nn.ModuleList([])
        self.up_blocks = nn.ModuleList([])
        output_channel = block_out_channels[0]
        for i in range(n):
            input_channel = output_channel
            output_channel = block_out_channels[i]
            last = i == len(block_out_channels) - 1
            if down_block_types[i] == "CrossAttnDownBlock2D":
                block = CrossAttnDownBlock2D(layers[i], transformer_layers[i], input_channel, output_channel,
                                             time_embed_dim, not last, norm_eps, norm_num_groups, heads[i], cross[i],
                                             downsample_padding, use_linear_projection, only_cross[i], dropout)
            elif down_block_types[i] == "DownBlock2D":
                block = DownBlock2D(False, layers[i], input_channel, output_channel, time_embed_dim, not last,
                                    norm_eps, norm_num_groups, 1, downsample_padding, dropout)
            else:
                not_built("UNet2DConditionModel down block " + down_block_types[i])
                block = DownBlock2D(False, layers[i], input_channel, output_channel, time_embed_dim, not last,
                                    norm_eps, norm_num_groups, 1, downsample_padding, dropout)
            self.down_blocks.append(block)
        self.mid_block = None
        if mid_block_type == "UNetMidBlock2DCrossAttn":
            self.mid_block = UNetMidBlock2DCrossAttn(block_out_channels[-1], time_embed_dim, transformer_layers[-1],
                                                     norm_eps, norm_num_groups, heads[-1], mid_block_scale_factor,
                                                     cross[-1], use_linear_projection, dropout)
        elif mid_block_type == "UNetMidBlock2D":
            self.mid_block = UNetMidBlock2D(block_out_channels[-1], time_embed_dim, norm_eps, norm_num_groups, 1,
                                            False, mid_block_scale_factor, dropout, num_layers=0)
        elif mid_block_type is not None:
            not_built("UNet2DConditionModel(mid_block_type=" + str(mid_block_type) + ")")
        reversed_channels = list(reversed(block_out_channels))
        reversed_heads = list(reversed(heads))
        reversed_layers = list(reversed(layers))
        reversed_cross = list(reversed(cross))
        reversed_transformer_layers = reverse_transformer_layers_per_block or list(reversed(transformer_layers))
        reversed_only_cross = list(reversed(only_cross))
        output_channel = reversed_channels[0]
        for i in range(len(up_block_types)):
            last = i == len(block_out_channels) - 1
            prev_output_channel = output_channel
            output_channel = reversed_channels[i]
            input_channel = reversed_channels[min(i + 1, len(block_out_channels) - 1)]
            if up_block_types[i] == "CrossAttnUpBlock2D":
                block = CrossAttnUpBlock2D(reversed_layers[i] + 1, reversed_transformer_layers[i], input_channel,
                                           prev_output_channel, output_channel, time_embed_dim, not last, norm_eps,
                                           norm_num_groups, reversed_heads[i], reversed_cross[i],
                                           use_linear_projection, reversed_only_cross[i], dropout)
            else:
                if up_block_types[i] != "UpBlock2D":
                    not_built("UNet2DConditionModel up block " + up_block_types[i])
                block = UpBlock2D(False, reversed_layers[i] + 1, input_channel, prev_output_channel, output_channel,
                                  time_embed_dim, not last, norm_eps, norm_num_groups, 1, dropout)
            self.up_blocks.append(block)
        self.conv_norm_out = None
        if norm_num_groups is not None:
            self.conv_norm_out = nn.GroupNorm(num_channels=block_out_channels[0], num_groups=norm_num_groups,
                                              eps=norm_eps)
        self.conv_act = nn.SiLU()
        self.conv_out = nn.Conv2d(block_out_channels[0], out_channels, kernel_size=conv_out_kernel,
                                  padding=(conv_out_kernel - 1) // 2)

    def forward(self, sample, timestep, encoder_hidden_states=None, class_labels=None, timestep_cond=None,
                attention_mask=None, cross_attention_kwargs=None, added_cond_kwargs=None, return_dict=True,
                **kwargs):
        if self.center_input_sample:
            sample = 2 * sample - 1.0
        timesteps = timestep
        if not torch.is_tensor(timesteps):
            timesteps = torch.tensor([timesteps], dtype=torch.long, device=sample.device)
        elif len(timesteps.shape) == 0:
            timesteps = timesteps[None]
        timesteps = timesteps.expand(sample.shape[0])
        emb = self.time_embedding(self.time_proj(timesteps).to(dtype=sample.dtype))
        if self.class_embedding is not None:
            emb = emb + self.class_embedding(class_labels)
        if self.addition_embed_type == "text_time":
            text_embeds = added_cond_kwargs["text_embeds"]
            time_embeds = self.add_time_proj(added_cond_kwargs["time_ids"].flatten())
            time_embeds = time_embeds.reshape((text_embeds.shape[0], -1))
            add_embeds = torch.concat([text_embeds, time_embeds], dim=-1).to(emb.dtype)
            emb = emb + self.add_embedding(add_embeds)
        sample = self.conv_in(sample)
        down_block_res_samples = (sample,)
        for i in range(len(self.down_blocks)):
            sample, res_samples = self.down_blocks[i](sample, emb, encoder_hidden_states)
            down_block_res_samples = down_block_res_samples + res_samples
        if self.mid_block is not None:
            sample = self.mid_block(sample, emb, encoder_hidden_states)
        for i in range(len(self.up_blocks)):
            k = len(self.up_blocks[i].resnets)
            res_samples = down_block_res_samples[-k:]
            down_block_res_samples = down_block_res_samples[:-k]
            sample = self.up_blocks[i](sample, res_samples, emb, encoder_hidden_states)
        if self.conv_norm_out is not None:
            sample = self.conv_act(self.conv_norm_out(sample))
        sample = self.conv_out(sample)
        if not return_dict:
            return (sample,)
        return BaseOutput("sample", sample)
