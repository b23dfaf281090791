"""GPT-2 large under FSDP full sharding with bf16 MixedPrecision on 8 GPUs."""
import torch
import torch.distributed as dist
from torch.distributed.fsdp import FullyShardedDataParallel as FSDP, MixedPrecision
from transformers import GPT2LMHeadModel

BATCH_SIZE = 8
SEQ_LEN = 1024

dist.init_process_group("nccl")
model = GPT2LMHeadModel.from_pretrained("gpt2-large")
model = FSDP(model, mixed_precision=MixedPrecision(param_dtype=torch.bfloat16, reduce_dtype=torch.bfloat16))
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
ids = torch.randint(0, 50257, (BATCH_SIZE, SEQ_LEN), device="cuda")
for step in range(100):
    loss = model(input_ids=ids, labels=ids).loss
    loss.backward()
    optimizer.step()
    optimizer.zero_grad()
