# tpf: target=a10g seq-len=256
"""A Hugging Face Trainer run: TrainingArguments give batch, precision, checkpointing, optimizer; the dataset is not modeled, so the batch is synthesized from --seq-len."""
from transformers import AutoModelForSequenceClassification, Trainer, TrainingArguments
from datasets import load_dataset

model = AutoModelForSequenceClassification.from_pretrained("roberta-base", num_labels=3)
args = TrainingArguments(output_dir="out", per_device_train_batch_size=32, bf16=True,
                         gradient_checkpointing=True, optim="adamw_torch_fused")
ds = load_dataset("glue", "mnli")
trainer = Trainer(model=model, args=args, train_dataset=ds["train"])
trainer.train()
