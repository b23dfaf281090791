# LoRA in litgpt's style: a Config dataclass that subclasses the base one
# and adds the lora_* fields (the named configuration's sizes must survive),
# a fused qkv Linear with low-rank A/B for the enabled projections only,
# and a helper that freezes everything whose name lacks "lora_".
import math
from dataclasses import dataclass
from typing import Any, Tuple, Union

import torch
import torch.nn as nn

from minigpt.config import Config as BaseConfig
from minigpt.model import GPT as BaseModel
from minigpt.model import Block as BaseBlock
from minigpt.model import CausalSelfAttention as BaseCausalSelfAttention


class LoRALayer(nn.Module):
    def __init__(self, r: int, lora_alpha: int, lora_dropout: float) -> None:
        super().__init__()
        self.r = r
        self.lora_alpha = lora_alpha
        self.lora_dropout = nn.Dropout(p=lora_dropout) if lora_dropout > 0.0 else (lambda x: x)


class LoRAQKVLinear(LoRALayer):
    def __init__(self, in_features: int, out_features: int, head_size: int, n_head: int, n_query_groups: int,
                 r: int = 0, lora_alpha: int = 1, lora_dropout: float = 0.0,
                 enable_lora: Union[bool, Tuple[bool, bool, bool]] = False, **kwargs: Any) -> None:
        super().__init__(r=r, lora_alpha=lora_alpha, lora_dropout=lora_dropout)
        self.linear = nn.Linear(in_features, out_features, **kwargs)
        if isinstance(enable_lora, bool):
            enable_lora = [enable_lora] * 3
        self.enable_lora = enable_lora
        if r > 0 and any(enable_lora):
            self.lora_A = nn.Parameter(torch.empty((r * sum(enable_lora), in_features)))
            enable_q, enable_k, enable_v = enable_lora
            shapes = (head_size * n_head * enable_q, head_size * n_query_groups * enable_k,
                      head_size * n_query_groups * enable_v)
            self.qkv_shapes = [s for s in shapes if s]
            self.lora_B = nn.Parameter(torch.empty(sum(self.qkv_shapes), r))
            self.scaling = self.lora_alpha / self.r
            nn.init.kaiming_uniform_(self.lora_A, a=math.sqrt(5))
            nn.init.zeros_(self.lora_B)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out = self.linear(x)
        if self.r == 0 or not any(self.enable_lora):
            return out
        after_a = self.lora_dropout(x) @ self.lora_A.T
        # Each enabled projection's rank-r slice times its rows of B, padded
        # into the fused output (litgpt's zero_pad).
        delta = after_a[..., : self.r] @ self.lora_B[: self.qkv_shapes[0]].T
        pad = torch.zeros(*out.shape[:-1], out.shape[-1] - delta.shape[-1], dtype=out.dtype)
        return out + torch.cat((delta, pad), dim=-1) * self.scaling


@dataclass
class Config(BaseConfig):
    lora_r: int = 0
    lora_alpha: int = 1
    lora_dropout: float = 0.0
    lora_query: bool = False
    lora_key: bool = False
    lora_value: bool = False


class GPT(BaseModel):
    def __init__(self, config: Config) -> None:
        super().__init__(config)
        self.transformer.h = nn.ModuleList(Block(config, i) for i in range(config.n_layer))

    @classmethod
    def from_name(cls, name: str, **kwargs: Any) -> "GPT":
        return cls(Config.from_name(name, **kwargs))


class Block(BaseBlock):
    def __init__(self, config: Config, block_idx: int) -> None:
        super().__init__(config, block_idx)
        self.attn = CausalSelfAttention(config, block_idx)


class CausalSelfAttention(BaseCausalSelfAttention):
    def __init__(self, config: Config, block_idx: int) -> None:
        super().__init__(config, block_idx)
        self.qkv = LoRAQKVLinear(
            in_features=config.n_embd,
            out_features=(config.n_head + 2 * config.n_query_groups) * config.head_size,
            head_size=config.head_size, n_head=config.n_head, n_query_groups=config.n_query_groups,
            r=config.lora_r, lora_alpha=config.lora_alpha, lora_dropout=config.lora_dropout,
            enable_lora=(config.lora_query, config.lora_key, config.lora_value), bias=config.bias,
        )


def mark_only_lora_as_trainable(model: nn.Module) -> None:
    for n, p in model.named_parameters():
        if "lora_" not in n:
            p.requires_grad = False
