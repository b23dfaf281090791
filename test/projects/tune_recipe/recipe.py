"""A recipe in torchtune's style: `tune run recipe.py --config configs/small.yaml key=value`."""
import sys

import torch
import torch.nn.functional as F
from torchtune import config

from models.precision import default_dtype

DTYPES = {"bf16": torch.bfloat16, "fp32": torch.float32}


class Recipe:
    def __init__(self, cfg):
        self.dtype = DTYPES[cfg.dtype]
        self.batch_size = cfg.batch_size
        self.seq_len = cfg.seq_len
        self.vocab = cfg.model.vocab_size

    def setup(self, cfg):
        with default_dtype(self.dtype):
            self.model = config.instantiate(cfg.model).cuda()
        self.opt = config.instantiate(cfg.optimizer, self.model.parameters())

    def train(self):
        for _ in range(10):
            tokens = torch.randint(0, self.vocab, (self.batch_size, self.seq_len), device="cuda")
            logits = self.model(tokens)
            loss = F.cross_entropy(logits.flatten(0, 1).float(), tokens.flatten())
            loss.backward()
            self.opt.step()
            self.opt.zero_grad(set_to_none=True)


@config.parse
def recipe_main(cfg):
    recipe = Recipe(cfg)
    recipe.setup(cfg)
    recipe.train()


if __name__ == "__main__":
    sys.exit(recipe_main())
