# tpf: target=t4
"""GPT-2 (124M) fine-tuning with AdamW and fp16 AMP: the published T4 calibration point."""
import torch
from torch.utils.data import DataLoader, TensorDataset
from transformers import GPT2LMHeadModel

BATCH_SIZE = 4
SEQ_LEN = 128

# The published peak was measured with eager attention (no SDPA then).
model = GPT2LMHeadModel.from_pretrained("gpt2", attn_implementation="eager").cuda()
optimizer = torch.optim.AdamW(model.parameters(), lr=5e-5)
scaler = torch.cuda.amp.GradScaler()
loader = DataLoader(TensorDataset(torch.randint(0, 50257, (256, SEQ_LEN))), batch_size=BATCH_SIZE)

model.train()
for (ids,) in loader:
    ids = ids.cuda()
    with torch.autocast("cuda", dtype=torch.float16):
        loss = model(input_ids=ids, labels=ids).loss
    scaler.scale(loss).backward()
    scaler.step(optimizer)
    scaler.update()
    optimizer.zero_grad(set_to_none=True)
