# tpf: target=a100 -- --model_name_or_path gpt2-medium --per_device_train_batch_size 4 --bf16 --block_size 512 --gradient_checkpointing --output_dir out
"""A run_clm.py-style fine-tune whose settings come from HfArgumentParser dataclasses and the run's
command line: the model name is a required field, the block size a field default replaced by
--block_size, and the batch, bf16 and checkpointing are TrainingArguments options."""
import sys
from dataclasses import dataclass, field
from typing import Optional

from transformers import AutoModelForCausalLM, AutoTokenizer, HfArgumentParser, Trainer, TrainingArguments


@dataclass
class ModelArguments:
    model_name_or_path: str = field(metadata={"help": "checkpoint"})
    use_fast: bool = True


@dataclass
class DataArguments:
    dataset_name: Optional[str] = None
    block_size: Optional[int] = field(default=1024)


def main():
    parser = HfArgumentParser((ModelArguments, DataArguments, TrainingArguments))
    if len(sys.argv) == 2 and sys.argv[1].endswith(".json"):
        model_args, data_args, training_args = parser.parse_json_file(json_file=sys.argv[1])
    else:
        model_args, data_args, training_args = parser.parse_args_into_dataclasses()
    model = AutoModelForCausalLM.from_pretrained(model_args.model_name_or_path)
    tok = AutoTokenizer.from_pretrained(model_args.model_name_or_path)
    trainer = Trainer(model=model, args=training_args, train_dataset=None)
    trainer.train()


if __name__ == "__main__":
    main()
