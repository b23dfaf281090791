# tpf: target=l4
"""Llama 3.1 8B in bf16 generating 4096 tokens after 4096-token prompts for a
batch of 8 with `model.generate`: grouped-query attention keeps 8 KV heads of
128 for its 32 query heads, so the cache is 2 x 32 x 8 x 128 x 8192 x 8 x 2
bytes; with the 16 GB of weights it does not fit an L4."""
import torch
from transformers import AutoModelForCausalLM

model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-3.1-8B-Instruct", torch_dtype=torch.bfloat16)
model.to("cuda").eval()
prompts = torch.randint(0, 128256, (8, 4096), device="cuda")
with torch.inference_mode():
    out = model.generate(prompts, max_new_tokens=4096, do_sample=False)
print(out.shape)
