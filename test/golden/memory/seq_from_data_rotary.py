# tpf: target=h100
"""Chat fine-tuning of a rotary model (no position table) whose batches are padded to the longest
dialogue in each batch: the sequence length comes from the data. The config's
max_position_embeddings (2,048) is the context the model was trained for and where truncation
stops: estimated there, the run fits, and the report says it is a bound."""
import torch
from datasets import load_dataset
from torch.utils.data import DataLoader
from transformers import AutoModelForCausalLM, AutoTokenizer, DataCollatorWithPadding

name = "TinyLlama/TinyLlama-1.1B-Chat-v1.0"
tokenizer = AutoTokenizer.from_pretrained(name)
dialogues = load_dataset("json", data_files="chats.jsonl")["train"]
dialogues = dialogues.map(lambda ex: tokenizer(ex["text"], truncation=True), batched=True)
loader = DataLoader(dialogues, batch_size=4, shuffle=True, collate_fn=DataCollatorWithPadding(tokenizer))

model = AutoModelForCausalLM.from_pretrained(name, torch_dtype=torch.bfloat16).cuda()
model.gradient_checkpointing_enable()
opt = torch.optim.AdamW(model.parameters(), lr=2e-5)
for batch in loader:
    batch = {k: v.cuda() for k, v in batch.items()}
    loss = model(**batch, labels=batch["input_ids"]).loss
    loss.backward()
    opt.step()
    opt.zero_grad()
