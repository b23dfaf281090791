"""diffusers' AutoencoderKL, the Stable Diffusion VAE, as the estimator's
interpreter runs it.

Module for module diffusers 0.40.0.dev0 (huggingface/diffusers commit
58eb52c): models/autoencoders/autoencoder_kl.py and vae.py (Encoder,
Decoder, the quant convs, DiagonalGaussianDistribution), with
unet_2d_blocks.py's DownEncoderBlock2D and UpDecoderBlock2D; the resnets
(without a time embedding), the mid block with its one-head spatial
attention and the resampling convs are hf_diffusers.py's. Only the
DownEncoderBlock2D / UpDecoderBlock2D layout (every Stable Diffusion VAE's)
is built.
This file is interpreted by tpf-analyze, never imported by it.
"""
import torch
import torch.nn as nn

from tpf_zoo.hf_diffusers import (BaseOutput, DiffusersConfig, Downsample2D, ModelMixin, ResnetBlock2D,
                                  UNetMidBlock2D, Upsample2D, not_built)


class DownEncoderBlock2D(nn.Module):
    def __init__(self, num_layers, in_channels, out_channels, add_downsample, groups):
        super().__init__()
        self.resnets = nn.ModuleList([
            ResnetBlock2D(in_channels if i == 0 else out_channels, out_channels, None, 1e-6, groups, 0.0, 1.0)
            for i in range(num_layers)])
        # The Encoder builds its blocks with downsample_padding=0.
        self.downsamplers = nn.ModuleList([Downsample2D(out_channels, 0)]) if add_downsample else None

    def forward(self, hidden_states):
        for resnet in self.resnets:
            hidden_states = resnet(hidden_states, None)
        if self.downsamplers is not None:
            hidden_states = self.downsamplers[0](hidden_states)
        return hidden_states


class UpDecoderBlock2D(nn.Module):
    def __init__(self, num_layers, in_channels, out_channels, add_upsample, groups):
        super().__init__()
        self.resnets = nn.ModuleList([
            ResnetBlock2D(in_channels if i == 0 else out_channels, out_channels, None, 1e-6, groups, 0.0, 1.0)
            for i in range(num_layers)])
        self.upsamplers = nn.ModuleList([Upsample2D(out_channels)]) if add_upsample else None

    def forward(self, hidden_states, temb=None):
        for resnet in self.resnets:
            hidden_states = resnet(hidden_states, None)
        if self.upsamplers is not None:
            hidden_states = self.upsamplers[0](hidden_states)
        return hidden_states


class Encoder(nn.Module):
    def __init__(self, in_channels, out_channels, block_out_channels, layers_per_block, norm_num_groups,
                 mid_block_add_attention):
        super().__init__()
        self.conv_in = nn.Conv2d(in_channels, block_out_channels[0], kernel_size=3, stride=1, padding=1)
        self.down_blocks = nn.ModuleList([])
        output_channel = block_out_channels[0]
        for i in range(len(block_out_channels)):
            input_channel = output_channel
            output_channel = block_out_channels[i]
            self.down_blocks.append(DownEncoderBlock2D(layers_per_block, input_channel, output_channel,
                                                       i != len(block_out_channels) - 1, norm_num_groups))
        self.mid_block = UNetMidBlock2D(block_out_channels[-1], None, 1e-6, norm_num_groups, block_out_channels[-1],
                                        mid_block_add_attention, 1, 0.0)
        self.conv_norm_out = nn.GroupNorm(num_channels=block_out_channels[-1], num_groups=norm_num_groups, eps=1e-6)
        self.conv_act = nn.SiLU()
        self.conv_out = nn.Conv2d(block_out_channels[-1], 2 * out_channels, 3, padding=1)

    def forward(self, sample):
        sample = self.conv_in(sample)
        for block in self.down_blocks:
            sample = block(sample)
        sample = self.mid_block(sample)
        return self.conv_out(self.conv_act(self.conv_norm_out(sample)))


class Decoder(nn.Module):
    def __init__(self, in_channels, out_channels, block_out_channels, layers_per_block, norm_num_groups,
                 mid_block_add_attention):
        super().__init__()
        self.conv_in = nn.Conv2d(in_channels, block_out_channels[-1], kernel_size=3, stride=1, padding=1)
        self.mid_block = UNetMidBlock2D(block_out_channels[-1], None, 1e-6, norm_num_groups, block_out_channels[-1],
                                        mid_block_add_attention, 1, 0.0)
        self.up_blocks = nn.ModuleList([])
        reversed_channels = list(reversed(block_out_channels))
        output_channel = reversed_channels[0]
        for i in range(len(block_out_channels)):
            prev_output_channel = output_channel
            output_channel = reversed_channels[i]
            self.up_blocks.append(UpDecoderBlock2D(layers_per_block + 1, prev_output_channel, output_channel,
                                                   i != len(block_out_channels) - 1, norm_num_groups))
        self.conv_norm_out = nn.GroupNorm(num_channels=block_out_channels[0], num_groups=norm_num_groups, eps=1e-6)
        self.conv_act = nn.SiLU()
        self.conv_out = nn.Conv2d(block_out_channels[0], out_channels, 3, padding=1)

    def forward(self, sample, latent_embeds=None):
        sample = self.conv_in(sample)
        sample = self.mid_block(sample)
        for block in self.up_blocks:
            sample = block(sample)
        return self.conv_out(self.conv_act(self.conv_norm_out(sample)))


class DiagonalGaussianDistribution:
    def __init__(self, parameters, deterministic=False):
        self.parameters = parameters
        self.mean, self.logvar = torch.chunk(parameters, 2, dim=1)
        self.logvar = torch.clamp(self.logvar, -30.0, 20.0)
        self.std = torch.exp(0.5 * self.logvar)
        self.var = torch.exp(self.logvar)

    def sample(self, generator=None):
        return self.mean + self.std * torch.randn_like(self.mean)

    def mode(self):
        return self.mean

    def kl(self, other=None):
        return 0.5 * torch.sum(torch.pow(self.mean, 2) + self.var - 1.0 - self.logvar, dim=[1, 2, 3])


class AutoencoderKL(ModelMixin):
    def __init__(self, in_channels=3, out_channels=3, down_block_types=("DownEncoderBlock2D",),
                 up_block_types=("UpDecoderBlock2D",), block_out_channels=(64,), layers_per_block=1, act_fn="silu",
                 latent_channels=4, norm_num_groups=32, sample_size=32, scaling_factor=0.18215, shift_factor=None,
                 latents_mean=None, latents_std=None, force_upcast=True, use_quant_conv=True,
                 use_post_quant_conv=True, mid_block_add_attention=True, **kwargs):
        super().__init__()
        for t in list(down_block_types) + list(up_block_types):
            if t not in ("DownEncoderBlock2D", "UpDecoderBlock2D"):
                not_built("AutoencoderKL block " + t)
        self.config = DiffusersConfig(scaling_factor=scaling_factor, shift_factor=shift_factor,
                                      latent_channels=latent_channels, sample_size=sample_size,
                                      block_out_channels=block_out_channels, force_upcast=force_upcast)
        self.encoder = Encoder(in_channels, latent_channels, block_out_channels, layers_per_block, norm_num_groups,
                               mid_block_add_attention)
        self.decoder = Decoder(latent_channels, out_channels, block_out_channels, layers_per_block, norm_num_groups,
                               mid_block_add_attention)
        self.quant_conv = nn.Conv2d(2 * latent_channels, 2 * latent_channels, 1) if use_quant_conv else None
        self.post_quant_conv = nn.Conv2d(latent_channels, latent_channels, 1) if use_post_quant_conv else None

    def checkpoint_units(self):
        # vae.py's Encoder and Decoder checkpoint each down/up block and
        # their mid blocks whole.
        return list(self.encoder.down_blocks) + [self.encoder.mid_block, self.decoder.mid_block] + \
            list(self.decoder.up_blocks)

    def enable_slicing(self):
        pass

    def enable_tiling(self):
        pass

    # diffusers wraps encode and decode in apply_forward_hook, so hooks see
    # them as calls of the module; here they are calls of the module too,
    # so that the VAE (not its encoder) is the model a script runs.
    def encode(self, x, return_dict=True):
        return self(x, return_dict=return_dict, part="encode")

    def decode(self, z, return_dict=True, generator=None):
        return self(z, return_dict=return_dict, part="decode")

    def encode_part(self, x, return_dict=True):
        h = self.encoder(x)
        if self.quant_conv is not None:
            h = self.quant_conv(h)
        posterior = DiagonalGaussianDistribution(h)
        if not return_dict:
            return (posterior,)
        return BaseOutput("latent_dist", posterior)

    def decode_part(self, z, return_dict=True):
        if self.post_quant_conv is not None:
            z = self.post_quant_conv(z)
        dec = self.decoder(z)
        if not return_dict:
            return (dec,)
        return BaseOutput("sample", dec)

    def forward(self, sample, sample_posterior=False, return_dict=True, generator=None, part=None):
        if part == "encode":
            return self.encode_part(sample, return_dict)
        if part == "decode":
            return self.decode_part(sample, return_dict)
        posterior = self.encode_part(sample).latent_dist
        z = posterior.sample() if sample_posterior else posterior.mode()
        return self.decode_part(z, return_dict)
