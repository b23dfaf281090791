"""A run_*.py-style entry point: HfArgumentParser reads one JSON file of options when that is
the only argument (parse_json_file), else the command line."""
import os
import sys
from dataclasses import dataclass, field

import torch
import torch.nn as nn
from transformers import HfArgumentParser, TrainingArguments


@dataclass
class ModelArguments:
    width: int = field(metadata={"help": "hidden width"})
    max_seq_length: int = 128


def main():
    parser = HfArgumentParser((ModelArguments, TrainingArguments))
    if len(sys.argv) == 2 and sys.argv[1].endswith(".json"):
        margs, targs = parser.parse_json_file(json_file=os.path.abspath(sys.argv[1]))
    else:
        margs, targs = parser.parse_args_into_dataclasses()
    model = nn.Sequential(nn.Embedding(32000, margs.width), nn.Linear(margs.width, 32000)).cuda()
    opt = torch.optim.AdamW(model.parameters())
    for step in range(100):
        ids = torch.randint(0, 32000, (targs.per_device_train_batch_size, margs.max_seq_length), device="cuda")
        loss = nn.functional.cross_entropy(model(ids).flatten(0, 1), ids.flatten())
        loss.backward()
        opt.step()
        opt.zero_grad()


if __name__ == "__main__":
    main()
