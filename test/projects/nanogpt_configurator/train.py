"""nanoGPT's train.py shape: module-level settings, overridden by exec'ing configurator.py,
which runs a config file named on the command line (config/train_char.py) and --key=value
arguments in this module's globals. The batch, the window (block_size) and the accumulation
steps that reach the loop are the overridden ones."""
import time
from contextlib import nullcontext

import torch

from model import GPTConfig, GPT

out_dir = 'out'
eval_interval = 2000
batch_size = 12
block_size = 1024
gradient_accumulation_steps = 5 * 8
n_layer = 12
n_head = 12
n_embd = 768
dropout = 0.0
bias = False
learning_rate = 6e-4
max_iters = 600000
device = 'cuda'
dtype = 'bfloat16'
config_keys = [k for k, v in globals().items() if not k.startswith('_') and isinstance(v, (int, float, bool, str))]
exec(open('configurator.py').read())
config = {k: globals()[k] for k in config_keys}

tokens_per_iter = gradient_accumulation_steps * batch_size * block_size
print(f"tokens per iteration will be: {tokens_per_iter:,}")
device_type = 'cuda' if 'cuda' in device else 'cpu'
ptdtype = {'float32': torch.float32, 'bfloat16': torch.bfloat16, 'float16': torch.float16}[dtype]
ctx = nullcontext() if device_type == 'cpu' else torch.amp.autocast(device_type=device_type, dtype=ptdtype)


def get_batch(split):
    x = torch.randint(50304, (batch_size, block_size))
    y = torch.randint(50304, (batch_size, block_size))
    return x.pin_memory().to(device, non_blocking=True), y.pin_memory().to(device, non_blocking=True)


model_args = dict(n_layer=n_layer, n_head=n_head, n_embd=n_embd, block_size=block_size,
                  bias=bias, vocab_size=50304, dropout=dropout)
gptconf = GPTConfig(**model_args)
model = GPT(gptconf)
model.to(device)
scaler = torch.cuda.amp.GradScaler(enabled=(dtype == 'float16'))
optimizer = torch.optim.AdamW(model.parameters(), lr=learning_rate, betas=(0.9, 0.95))

X, Y = get_batch('train')
iter_num = 0
while True:
    for micro_step in range(gradient_accumulation_steps):
        with ctx:
            logits, loss = model(X, Y)
            loss = loss / gradient_accumulation_steps
        X, Y = get_batch('train')
        scaler.scale(loss).backward()
    scaler.step(optimizer)
    scaler.update()
    optimizer.zero_grad(set_to_none=True)
    iter_num += 1
    if iter_num > max_iters:
        break
