# tpf: target=t4
"""GPT-2 (124M) sampling 96 tokens for a batch of 4 prompts of 32 tokens with
`model.generate`: an inference estimate (weights, the KV cache of 12 layers x
12 heads x 64, the prefill's largest op)."""
import torch
from transformers import GPT2LMHeadModel

model = GPT2LMHeadModel.from_pretrained("gpt2").cuda().eval()
input_ids = torch.randint(0, 50257, (4, 32)).cuda()
out = model.generate(input_ids, max_new_tokens=96, do_sample=True, top_k=50)
print(out.shape)
