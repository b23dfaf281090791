# The model of a named configuration, built from the package's own code.
import torch

from minigpt.config import Config
from minigpt.model import GPT

config = Config.from_name("tiny-neox-deduped")
model = GPT(config)
model.max_seq_length = 512
opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
for step in range(10):
    x = torch.randint(0, config.vocab_size, (8, 512))
    logits = model(x)
    loss = torch.nn.functional.cross_entropy(logits.flatten(0, 1), x.flatten())
    loss.backward()
    opt.step()
    opt.zero_grad()
