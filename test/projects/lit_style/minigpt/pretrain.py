# Run through the package's command line (minigpt/__main__.py), as litgpt's
# `litgpt pretrain --model_name NAME` is: this file has no entry point.
from dataclasses import dataclass
from typing import Optional

import torch

from minigpt.config import Config
from minigpt.model import GPT


@dataclass
class TrainArgs:
    micro_batch_size: int = 4
    max_steps: Optional[int] = None
    learning_rate: float = 3e-4


def setup(model_name: str, block_size: int = 256, train: TrainArgs = TrainArgs(micro_batch_size=8)) -> None:
    config = Config.from_name(model_name, block_size=block_size)
    main(config, train)


def main(config: Config, train: TrainArgs) -> None:
    model = GPT(config)
    optimizer = torch.optim.AdamW(model.parameters(), lr=train.learning_rate)
    for step in range(train.max_steps or 10):
        x = torch.randint(0, config.padded_vocab_size, (train.micro_batch_size, config.block_size))
        logits = model(x)
        loss = torch.nn.functional.cross_entropy(logits.flatten(0, 1), x.flatten())
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
