"""diffusers' UNet2DModel, the blocks the other diffusers models share, the
noise schedulers and training_utils' helpers, as the estimator's interpreter
runs them.

Module for module diffusers 0.3x (read at 0.40.0.dev0, commit 58eb52c):
models/unets/unet_2d.py and the blocks it
builds (unet_2d_blocks.py: DownBlock2D, AttnDownBlock2D, UNetMidBlock2D,
UpBlock2D, AttnUpBlock2D; resnet.py: ResnetBlock2D; downsampling.py and
upsampling.py with use_conv; embeddings.py: Timesteps, TimestepEmbedding;
attention_processor.py: the Attention of a `_from_deprecated_attn_block`,
group norm, to_q/to_k/to_v/to_out with biases, residual, SDPA), with
UNet2DModel's own defaults for every argument the script leaves out.
Parameter counts match diffusers' (google/ddpm-cifar10-32's config:
35,746,307). The noise schedulers are one class: add_noise and step give
tensors of the sample's shape. Only the "positional" time embedding,
"default" time scale shift and "conv" down/up sampling are built;
UNet2DModel(...) with another is a blocking unknown that names it.
ModelMixin gives the models `.config`, gradient checkpointing and
`add_adapter` (peft's LoRA, zoo/peft_lora.py).
This file is interpreted by tpf-analyze, never imported by it.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

from tpf_zoo.peft_lora import get_peft_model


def not_built(what):
    torch._tpf_blocking_unknown("diffusers `" + what + "` is not modeled")


def check_built(cls, args):
    """not_built for each (argument, value, the one value built) that differs."""
    for arg, value, default in args:
        if value != default:
            not_built(cls + "(" + arg + "=...)")


def multi_head_sdpa(q, k, v, heads):
    """(batch, tokens, heads * dim) projections through
    F.scaled_dot_product_attention (AttnProcessor2_0), heads merged back."""
    batch = q.shape[0]
    head_dim = q.shape[-1] // heads
    q = q.view(batch, -1, heads, head_dim).transpose(1, 2)
    k = k.view(batch, -1, heads, head_dim).transpose(1, 2)
    v = v.view(batch, -1, heads, head_dim).transpose(1, 2)
    out = F.scaled_dot_product_attention(q, k, v)
    return out.transpose(1, 2).reshape(batch, -1, heads * head_dim)


class BaseOutput:
    """diffusers' BaseOutput with one field (UNet2DOutput.sample,
    SchedulerOutput.prev_sample, AutoencoderKLOutput.latent_dist, ...): read
    by its name, or as the first item of the tuple return_dict=False gives."""

    def __init__(self, name, value):
        self.name = name
        setattr(self, name, value)

    def __getitem__(self, k):
        if isinstance(k, str):
            return getattr(self, k)
        return (getattr(self, self.name),)[k]


class SchedulerConfig:
    """The scheduler's config fields the training scripts read, at the
    defaults of diffusers' DDPMScheduler (num_train_timesteps=1000,
    prediction_type="epsilon")."""

    def __init__(self, num_train_timesteps, prediction_type):
        self.num_train_timesteps = num_train_timesteps
        self.prediction_type = prediction_type


class NoiseScheduler:
    """A noise scheduler (DDPMScheduler, DDIMScheduler, ...): no module, its
    tensors are the shapes of the samples it mixes."""

    def __init__(self, num_train_timesteps=1000, prediction_type="epsilon", **kwargs):
        self.config = SchedulerConfig(num_train_timesteps, prediction_type)
        self.num_train_timesteps = num_train_timesteps
        self.timesteps = torch.arange(num_train_timesteps)

    def set_timesteps(self, num_inference_steps, device=None):
        self.timesteps = torch.arange(num_inference_steps)

    def add_noise(self, original_samples, noise, timesteps):
        return original_samples * 0.5 + noise * 0.5

    def get_velocity(self, sample, noise, timesteps):
        return sample * 0.5 - noise * 0.5

    def scale_model_input(self, sample, timestep=None):
        return sample

    def step(self, model_output, timestep, sample, **kwargs):
        return BaseOutput("prev_sample", sample - model_output)

    def register_to_config(self, prediction_type=None, **kwargs):
        if prediction_type is not None:
            self.config.prediction_type = prediction_type


class EMAShadow(nn.Module):
    """EMAModel's shadow_params as buffers of a module, so that the copy is
    resident like a model's weights (a list of tensors made before the
    step would be taken for host data)."""

    def __init__(self, parameters):
        super().__init__()
        self.count = 0
        for p in parameters:
            self.register_buffer("shadow_" + str(self.count), p.clone().detach())
            self.count = self.count + 1

    def forward(self):
        return None


class EMAModel:
    """training_utils.EMAModel: a detached copy of every parameter it is
    given, moved with .to(); step() updates it in place (a loop of sub_,
    or torch._foreach_lerp_), so it adds one copy of the model's weights.
    step() runs the shadow module, which makes it one of the step's models."""

    def __init__(self, parameters, decay=0.9999, min_decay=0.0, update_after_step=0, use_ema_warmup=False,
                 inv_gamma=1.0, power=2 / 3, foreach=False, model_cls=None, model_config=None, **kwargs):
        self.ema_shadow = EMAShadow(parameters)
        self.decay = decay

    def to(self, device=None, dtype=None, non_blocking=False):
        self.ema_shadow.to(device=device, dtype=dtype)
        return self

    def step(self, parameters):
        self.ema_shadow()

    def copy_to(self, parameters):
        pass

    def store(self, parameters):
        pass

    def restore(self, parameters):
        pass

    def pin_memory(self):
        pass

    def save_pretrained(self, path):
        pass


def cast_training_params(model, dtype=torch.float32):
    """training_utils.cast_training_params: the trainable parameters (a
    LoRA's adapters) upcast, for fp16 mixed precision."""
    models = model if isinstance(model, list) else [model]
    for m in models:
        for p in m.parameters():
            if p.requires_grad:
                p.data = p.to(dtype)


def compute_snr(noise_scheduler, timesteps):
    """training_utils.compute_snr: one float per timestep."""
    return timesteps.float()


class Timesteps(nn.Module):
    """Sinusoidal embedding of the timesteps: no parameters."""

    def __init__(self, num_channels):
        super().__init__()
        self.num_channels = num_channels

    def forward(self, timesteps):
        half = self.num_channels // 2
        exponent = torch.arange(half, dtype=torch.float32, device=timesteps.device)
        emb = timesteps[:, None].float() * exponent[None, :]
        return torch.cat([torch.sin(emb), torch.cos(emb)], dim=-1)


class TimestepEmbedding(nn.Module):
    def __init__(self, in_channels, time_embed_dim):
        super().__init__()
        self.linear_1 = nn.Linear(in_channels, time_embed_dim)
        self.act = nn.SiLU()
        self.linear_2 = nn.Linear(time_embed_dim, time_embed_dim)

    def forward(self, sample):
        return self.linear_2(self.act(self.linear_1(sample)))


class ResnetBlock2D(nn.Module):
    """resnet.py's ResnetBlock2D, "default" time embedding norm: without
    temb_channels (the VAE's blocks) there is no time_emb_proj."""

    def __init__(self, in_channels, out_channels, temb_channels, eps, groups, dropout, output_scale_factor,
                 groups_out=None):
        super().__init__()
        self.norm1 = nn.GroupNorm(num_groups=groups, num_channels=in_channels, eps=eps, affine=True)
        self.conv1 = nn.Conv2d(in_channels, out_channels, kernel_size=3, stride=1, padding=1)
        self.time_emb_proj = None
        if temb_channels is not None:
            self.time_emb_proj = nn.Linear(temb_channels, out_channels)
        self.norm2 = nn.GroupNorm(num_groups=groups_out or groups, num_channels=out_channels, eps=eps, affine=True)
        self.dropout = nn.Dropout(dropout)
        self.conv2 = nn.Conv2d(out_channels, out_channels, kernel_size=3, stride=1, padding=1)
        self.nonlinearity = nn.SiLU()
        self.conv_shortcut = None
        if in_channels != out_channels:
            self.conv_shortcut = nn.Conv2d(in_channels, out_channels, kernel_size=1, stride=1, padding=0)
        self.output_scale_factor = output_scale_factor

    def forward(self, input_tensor, temb=None):
        hidden_states = self.nonlinearity(self.norm1(input_tensor))
        hidden_states = self.conv1(hidden_states)
        if self.time_emb_proj is not None:
            temb = self.time_emb_proj(self.nonlinearity(temb))[:, :, None, None]
            hidden_states = hidden_states + temb
        hidden_states = self.norm2(hidden_states)
        hidden_states = self.dropout(self.nonlinearity(hidden_states))
        hidden_states = self.conv2(hidden_states)
        if self.conv_shortcut is not None:
            input_tensor = self.conv_shortcut(input_tensor)
        return (input_tensor + hidden_states) / self.output_scale_factor


class Attention(nn.Module):
    """The spatial self-attention of a UNet block (`_from_deprecated_attn_block`)."""

    def __init__(self, channels, heads, dim_head, eps, groups, output_scale_factor):
        super().__init__()
        inner = heads * dim_head
        self.heads = heads
        self.group_norm = nn.GroupNorm(num_channels=channels, num_groups=groups, eps=eps, affine=True)
        self.to_q = nn.Linear(channels, inner)
        self.to_k = nn.Linear(channels, inner)
        self.to_v = nn.Linear(channels, inner)
        self.to_out = nn.ModuleList([nn.Linear(inner, channels), nn.Dropout(0.0)])
        self.rescale_output_factor = output_scale_factor

    def checkpoint_units(self):
        return []

    def forward(self, hidden_states, encoder_hidden_states=None):
        residual = hidden_states
        batch, channel, height, width = hidden_states.shape
        hidden_states = self.group_norm(hidden_states)
        hidden_states = hidden_states.view(batch, channel, height * width).transpose(1, 2)
        out = multi_head_sdpa(self.to_q(hidden_states), self.to_k(hidden_states), self.to_v(hidden_states),
                              self.heads)
        out = self.to_out[1](self.to_out[0](out))
        out = out.transpose(-1, -2).reshape(batch, channel, height, width)
        return (out + residual) / self.rescale_output_factor


class Downsample2D(nn.Module):
    def __init__(self, channels, padding):
        super().__init__()
        self.padding = padding
        self.conv = nn.Conv2d(channels, channels, kernel_size=3, stride=2, padding=padding)

    def forward(self, hidden_states):
        if self.padding == 0:
            hidden_states = F.pad(hidden_states, (0, 1, 0, 1), mode="constant", value=0)
        return self.conv(hidden_states)


class Upsample2D(nn.Module):
    def __init__(self, channels):
        super().__init__()
        self.conv = nn.Conv2d(channels, channels, kernel_size=3, padding=1)

    def forward(self, hidden_states):
        return self.conv(F.interpolate(hidden_states, scale_factor=2.0, mode="nearest"))


class DownBlock2D(nn.Module):
    """DownBlock2D, AttnDownBlock2D (attn) and, with the attentions
    replaced, hf_diffusers_sd.py's CrossAttnDownBlock2D: an attention gets
    the text (encoder_hidden_states) and the spatial one ignores it."""

    def __init__(self, attn, num_layers, in_channels, out_channels, temb_channels, add_downsample, eps, groups,
                 head_dim, padding, dropout):
        super().__init__()
        resnets = []
        attentions = []
        for i in range(num_layers):
            resnets.append(ResnetBlock2D(in_channels if i == 0 else out_channels, out_channels, temb_channels, eps,
                                         groups, dropout, 1.0))
            if attn:
                attentions.append(Attention(out_channels, out_channels // head_dim, head_dim, eps, groups, 1.0))
        self.resnets = nn.ModuleList(resnets)
        self.attentions = nn.ModuleList(attentions)
        self.downsamplers = nn.ModuleList([Downsample2D(out_channels, padding)]) if add_downsample else None

    def forward(self, hidden_states, temb, encoder_hidden_states=None):
        output_states = ()
        for i in range(len(self.resnets)):
            hidden_states = self.resnets[i](hidden_states, temb)
            if len(self.attentions) > 0:
                hidden_states = self.attentions[i](hidden_states, encoder_hidden_states)
            output_states = output_states + (hidden_states,)
        if self.downsamplers is not None:
            hidden_states = self.downsamplers[0](hidden_states)
            output_states = output_states + (hidden_states,)
        return hidden_states, output_states


class UpBlock2D(nn.Module):
    """UpBlock2D, AttnUpBlock2D and, with the attentions replaced,
    CrossAttnUpBlock2D."""

    def __init__(self, attn, num_layers, in_channels, prev_output_channel, out_channels, temb_channels, add_upsample,
                 eps, groups, head_dim, dropout):
        super().__init__()
        resnets = []
        attentions = []
        for i in range(num_layers):
            res_skip_channels = in_channels if i == num_layers - 1 else out_channels
            resnet_in_channels = prev_output_channel if i == 0 else out_channels
            resnets.append(ResnetBlock2D(resnet_in_channels + res_skip_channels, out_channels, temb_channels, eps,
                                         groups, dropout, 1.0))
            if attn:
                attentions.append(Attention(out_channels, out_channels // head_dim, head_dim, eps, groups, 1.0))
        self.resnets = nn.ModuleList(resnets)
        self.attentions = nn.ModuleList(attentions)
        self.upsamplers = nn.ModuleList([Upsample2D(out_channels)]) if add_upsample else None

    def forward(self, hidden_states, res_hidden_states_tuple, temb, encoder_hidden_states=None):
        for i in range(len(self.resnets)):
            res_hidden_states = res_hidden_states_tuple[-1]
            res_hidden_states_tuple = res_hidden_states_tuple[:-1]
            hidden_states = torch.cat([hidden_states, res_hidden_states], dim=1)
            hidden_states = self.resnets[i](hidden_states, temb)
            if len(self.attentions) > 0:
                hidden_states = self.attentions[i](hidden_states, encoder_hidden_states)
        if self.upsamplers is not None:
            hidden_states = self.upsamplers[0](hidden_states)
        return hidden_states


class UNetMidBlock2D(nn.Module):
    """A resnet, then num_layers (attention, resnet) pairs; the attention
    left out when add_attention is False (UNet2DConditionModel's
    "UNetMidBlock2D" has num_layers=0)."""

    def __init__(self, in_channels, temb_channels, eps, groups, head_dim, add_attention, output_scale_factor, dropout,
                 num_layers=1):
        super().__init__()
        resnets = [ResnetBlock2D(in_channels, in_channels, temb_channels, eps, groups, dropout, output_scale_factor)]
        attentions = []
        for _ in range(num_layers):
            if add_attention:
                attentions.append(Attention(in_channels, in_channels // head_dim, head_dim, eps, groups,
                                            output_scale_factor))
            resnets.append(ResnetBlock2D(in_channels, in_channels, temb_channels, eps, groups, dropout,
                                         output_scale_factor))
        self.resnets = nn.ModuleList(resnets)
        self.attentions = nn.ModuleList(attentions)

    def forward(self, hidden_states, temb=None, encoder_hidden_states=None):
        hidden_states = self.resnets[0](hidden_states, temb)
        for i in range(1, len(self.resnets)):
            if len(self.attentions) > 0:
                hidden_states = self.attentions[i - 1](hidden_states, encoder_hidden_states)
            hidden_states = self.resnets[i](hidden_states, temb)
        return hidden_states


class DiffusersConfig:
    """A model's `.config`: the constructor's arguments a script reads."""

    def __init__(self, **fields):
        for name in fields:
            setattr(self, name, fields[name])


class ModelMixin(nn.Module):
    """What diffusers' ModelMixin, ConfigMixin and PeftAdapterMixin give the
    zoo's models: `.config`, gradient checkpointing and LoRA adapters."""

    def enable_gradient_checkpointing(self, gradient_checkpointing_func=None):
        for m in self.checkpoint_units():
            torch._tpf_checkpoint_module(m, "enable_gradient_checkpointing()")

    def checkpoint_units(self):
        """What diffusers runs through `_gradient_checkpointing_func` in a
        UNet: each resnet of the down and up blocks, the mid block's resnets
        after the first, and each transformer block (Transformer2DModel's
        own checkpointing); the spatial attention of UNet2DModel's blocks
        runs as is."""
        units = []
        for block in list(self.down_blocks) + list(self.up_blocks):
            units = units + list(block.resnets)
            for attn in block.attentions:
                units = units + attn.checkpoint_units()
        if self.mid_block is not None:
            units = units + list(self.mid_block.resnets)[1:]
            for attn in self.mid_block.attentions:
                units = units + attn.checkpoint_units()
        return units

    def disable_gradient_checkpointing(self):
        pass

    def enable_xformers_memory_efficient_attention(self, attention_op=None):
        pass

    def set_attention_slice(self, slice_size):
        pass

    def num_parameters(self, only_trainable=False):
        return sum(p.numel() for p in self.parameters() if p.requires_grad or not only_trainable)

    def add_adapter(self, adapter_config, adapter_name="default"):
        # peft's inject_adapter_in_model: LoRA layers on the targets, every
        # other parameter frozen (_mark_only_adapters_as_trainable).
        get_peft_model(self, adapter_config)

    def set_adapter(self, adapter_name):
        pass


class UNet2DModel(ModelMixin):
    def __init__(self, sample_size=None, in_channels=3, out_channels=3, center_input_sample=False,
                 time_embedding_type="positional", time_embedding_dim=None, freq_shift=0, flip_sin_to_cos=True,
                 down_block_types=("DownBlock2D", "AttnDownBlock2D", "AttnDownBlock2D", "AttnDownBlock2D"),
                 mid_block_type="UNetMidBlock2D",
                 up_block_types=("AttnUpBlock2D", "AttnUpBlock2D", "AttnUpBlock2D", "UpBlock2D"),
                 block_out_channels=(224, 448, 672, 896), layers_per_block=2, mid_block_scale_factor=1,
                 downsample_padding=1, downsample_type="conv", upsample_type="conv", dropout=0.0, act_fn="silu",
                 attention_head_dim=8, norm_num_groups=32, attn_norm_num_groups=None, norm_eps=1e-5,
                 resnet_time_scale_shift="default", add_attention=True, class_embed_type=None,
                 num_class_embeds=None, num_train_timesteps=None):
        super().__init__()
        check_built("UNet2DModel", (("time_embedding_type", time_embedding_type, "positional"),
                                    ("resnet_time_scale_shift", resnet_time_scale_shift, "default"),
                                    ("downsample_type", downsample_type, "conv"),
                                    ("upsample_type", upsample_type, "conv"),
                                    ("class_embed_type", class_embed_type, None)))
        self.sample_size = sample_size
        self.in_channels = in_channels
        time_embed_dim = time_embedding_dim or block_out_channels[0] * 4
        self.conv_in = nn.Conv2d(in_channels, block_out_channels[0], kernel_size=3, padding=1)
        self.time_proj = Timesteps(block_out_channels[0])
        self.time_embedding = TimestepEmbedding(block_out_channels[0], time_embed_dim)
        self.class_embedding = None
        if num_class_embeds is not None and class_embed_type is None:
            self.class_embedding = nn.Embedding(num_class_embeds, time_embed_dim)
        self.down_blocks = nn.ModuleList([])
        self.up_blocks = nn.ModuleList([])
        output_channel = block_out_channels[0]
        for i in range(len(down_block_types)):
            input_channel = output_channel
            output_channel = block_out_channels[i]
            head_dim = attention_head_dim if attention_head_dim is not None else output_channel
            self.down_blocks.append(DownBlock2D(
                down_block_types[i] == "AttnDownBlock2D", layers_per_block, input_channel, output_channel,
                time_embed_dim, i != len(block_out_channels) - 1, norm_eps, norm_num_groups, head_dim,
                downsample_padding, dropout))
        self.mid_block = None
        if mid_block_type is not None:
            head_dim = attention_head_dim if attention_head_dim is not None else block_out_channels[-1]
            self.mid_block = UNetMidBlock2D(block_out_channels[-1], time_embed_dim, norm_eps, norm_num_groups,
                                            head_dim, add_attention, mid_block_scale_factor, dropout)
        reversed_channels = list(reversed(block_out_channels))
        output_channel = reversed_channels[0]
        for i in range(len(up_block_types)):
            prev_output_channel = output_channel
            output_channel = reversed_channels[i]
            input_channel = reversed_channels[min(i + 1, len(block_out_channels) - 1)]
            head_dim = attention_head_dim if attention_head_dim is not None else output_channel
            self.up_blocks.append(UpBlock2D(
                up_block_types[i] == "AttnUpBlock2D", layers_per_block + 1, input_channel, prev_output_channel,
                output_channel, time_embed_dim, i != len(block_out_channels) - 1, norm_eps, norm_num_groups,
                head_dim, dropout))
        self.conv_norm_out = nn.GroupNorm(num_channels=block_out_channels[0], num_groups=norm_num_groups,
                                          eps=norm_eps)
        self.conv_act = nn.SiLU()
        self.conv_out = nn.Conv2d(block_out_channels[0], out_channels, kernel_size=3, padding=1)

    def forward(self, sample, timestep, class_labels=None, return_dict=True):
        timesteps = timestep
        if not torch.is_tensor(timesteps):
            timesteps = torch.tensor([timesteps], dtype=torch.long, device=sample.device)
        timesteps = timesteps * torch.ones(sample.shape[0], dtype=timesteps.dtype, device=timesteps.device)
        emb = self.time_embedding(self.time_proj(timesteps))
        if self.class_embedding is not None:
            emb = emb + self.class_embedding(class_labels)
        sample = self.conv_in(sample)
        down_block_res_samples = (sample,)
        for i in range(len(self.down_blocks)):
            sample, res_samples = self.down_blocks[i](sample, emb)
            down_block_res_samples = down_block_res_samples + res_samples
        if self.mid_block is not None:
            sample = self.mid_block(sample, emb)
        for i in range(len(self.up_blocks)):
            n = len(self.up_blocks[i].resnets)
            res_samples = down_block_res_samples[-n:]
            down_block_res_samples = down_block_res_samples[:-n]
            sample = self.up_blocks[i](sample, res_samples, emb)
        sample = self.conv_out(self.conv_act(self.conv_norm_out(sample)))
        if not return_dict:
            return (sample,)
        return BaseOutput("sample", sample)
