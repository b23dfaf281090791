# tpf: target=a100-80gb
# case: full fine-tuning of a 7B model with AdamW on one 80 GB GPU, sizes from argparse
import argparse

import torch
from torch.utils.data import DataLoader, TensorDataset
from transformers import AutoModelForCausalLM

p = argparse.ArgumentParser()
p.add_argument("--batch-size", type=int, default=4)
p.add_argument("--max-length", type=int, default=1024)
args = p.parse_args()

torch.manual_seed(0)
model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-2-7b-hf").cuda()
optimizer = torch.optim.AdamW(model.parameters(), lr=2e-5)
tokens = torch.randint(0, 32000, (1024, args.max_length))
loader = DataLoader(TensorDataset(tokens), batch_size=args.batch_size, shuffle=True,
                    num_workers=4, pin_memory=True)

model.train()
for (input_ids,) in loader:
    input_ids = input_ids.cuda(non_blocking=True)
    with torch.autocast("cuda", dtype=torch.bfloat16):
        out = model(input_ids=input_ids, labels=input_ids)
    out.loss.backward()  # expect: TPF013
    optimizer.step()
    optimizer.zero_grad(set_to_none=True)
