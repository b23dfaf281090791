"""Full fine-tuning of Llama-2-7B in bf16 autocast with AdamW on one A100 80GB: does not fit."""
import argparse

import torch
from torch.utils.data import DataLoader, TensorDataset
from transformers import AutoModelForCausalLM

p = argparse.ArgumentParser()
p.add_argument("--batch-size", type=int, default=4)
p.add_argument("--max-length", type=int, default=1024)
p.add_argument("--lr", type=float, default=2e-5)
args = p.parse_args()

model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-2-7b-hf").cuda()
optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=0.0)
tokens = torch.randint(0, 32000, (1024, args.max_length))
loader = DataLoader(TensorDataset(tokens), batch_size=args.batch_size, shuffle=True)

model.train()
for (input_ids,) in loader:
    input_ids = input_ids.cuda()
    with torch.autocast("cuda", dtype=torch.bfloat16):
        out = model(input_ids=input_ids, labels=input_ids)
    out.loss.backward()
    optimizer.step()
    optimizer.zero_grad(set_to_none=True)
