# tpf: target=t4
"""Full fp32 fine-tuning of a 13B chat model on one T4: no stack of the suggested changes fits, and the report says so."""
import torch
from transformers import AutoModelForCausalLM, AutoTokenizer

MODEL = "meta-llama/Llama-2-13b-chat-hf"
BATCH_SIZE = 1
MAX_LEN = 256

tokenizer = AutoTokenizer.from_pretrained(MODEL)
model = AutoModelForCausalLM.from_pretrained(MODEL).cuda()
model.gradient_checkpointing_enable()
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-5)
for step in range(100):
    batch = tokenizer(["hello"] * BATCH_SIZE, max_length=MAX_LEN, padding="max_length", return_tensors="pt")
    ids = batch["input_ids"].cuda()
    loss = model(input_ids=ids, labels=ids).loss
    loss.backward()
    optimizer.step()
    optimizer.zero_grad(set_to_none=True)
