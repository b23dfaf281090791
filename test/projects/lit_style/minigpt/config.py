# A model configuration in litgpt's style: a dataclass whose __post_init__
# derives the sizes, named configurations in a list of dicts (some made in a
# loop), classes picked by name through properties.
from copy import deepcopy
from dataclasses import dataclass, field
from functools import partial
from typing import Any, Optional


def find_multiple(n: int, k: int) -> int:
    assert k > 0
    if n % k == 0:
        return n
    return n + k - (n % k)


@dataclass
class Config:
    name: str = ""
    hf_config: dict = field(default_factory=dict)
    block_size: int = 1024
    vocab_size: int = 50254
    padding_multiple: int = 512
    padded_vocab_size: Optional[int] = None
    n_layer: int = 4
    n_head: int = 4
    n_embd: int = 256
    head_size: Optional[int] = None
    n_query_groups: Optional[int] = None
    bias: bool = True
    intermediate_size: Optional[int] = None
    norm_class_name: str = "LayerNorm"
    mlp_class_name: str = "NeoxMLP"

    def __post_init__(self):
        if not self.name:
            self.name = self.hf_config.get("name", self.name)
        if self.head_size is None:
            assert self.n_embd % self.n_head == 0
            self.head_size = self.n_embd // self.n_head
        if self.padded_vocab_size is None:
            self.padded_vocab_size = find_multiple(self.vocab_size, self.padding_multiple)
        else:
            self.vocab_size = min(self.vocab_size, self.padded_vocab_size)
        if self.n_query_groups is None:
            self.n_query_groups = self.n_head
        if self.intermediate_size is None:
            self.intermediate_size = 4 * self.n_embd

    @classmethod
    def from_name(cls, name: str, **kwargs: Any) -> "Config":
        if name not in name_to_config:
            try:
                conf_dict = next(
                    config
                    for config in configs
                    if name == config["hf_config"]["name"]
                    or config["hf_config"]["org"] + "/" + config["hf_config"]["name"] == name
                )
            except StopIteration:
                raise ValueError(f"{name!r} is not a supported config name")
        else:
            conf_dict = name_to_config[name]
        conf_dict = conf_dict.copy()
        conf_dict.update(kwargs)
        return cls(**conf_dict)

    @property
    def mlp_class(self) -> type:
        import minigpt.model

        return getattr(minigpt.model, self.mlp_class_name)

    @property
    def norm_class(self) -> type:
        import torch

        if self.norm_class_name == "RMSNorm":
            from minigpt.model import RMSNorm

            return partial(RMSNorm, add_unit_offset="Gemma" in self.name)
        return getattr(torch.nn, self.norm_class_name)


configs = [
    dict(name="tiny-llama", hf_config=dict(org="acme", name="tiny-llama-hf"), n_layer=3, n_head=8,
         n_query_groups=2, n_embd=256, vocab_size=32000, padding_multiple=64, bias=False,
         norm_class_name="RMSNorm", mlp_class_name="LLaMAMLP", intermediate_size=688),
]
neox = [
    dict(name="tiny-neox{}", hf_config=dict(org="acme", name="tiny-neox{}"), n_layer=2, n_head=4, n_embd=128,
         vocab_size=1000, padding_multiple=128),
]
for c in neox:
    for kind in ("", "-deduped"):
        copy = deepcopy(c)
        copy["name"] = c["name"].format(kind)
        copy["hf_config"]["name"] = c["hf_config"]["name"].format(kind)
        configs.append(copy)

name_to_config = {config["name"]: config for config in configs}
