# tpf: target=t4
"""A dataclass-configured token tagger (embedding, two bidirectional-style linear mixers, a
per-token head) trained on batches a collator pads to the longest sentence. Its capacity,
max_seq_len = 2048, is the only length the script names: estimated there the step is over the
T4, but the run's own length comes from its data, so the verdict is unknown and names --seq-len
(with --seq-len the verdict is the run's)."""
from dataclasses import dataclass

import torch
import torch.nn as nn
from torch.utils.data import DataLoader

from tagging.data import Sentences, pad_batch


@dataclass
class TaggerConfig:
    vocab: int = 50_000
    width: int = 1024
    tags: int = 48
    max_seq_len: int = 2048
    batch_size: int = 128


cfg = TaggerConfig()
model = nn.Sequential(
    nn.Embedding(cfg.vocab, cfg.width),
    nn.Linear(cfg.width, 4 * cfg.width), nn.GELU(),
    nn.Linear(4 * cfg.width, cfg.width), nn.GELU(),
    nn.Linear(cfg.width, cfg.tags),
).cuda()
opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
loader = DataLoader(Sentences("train"), batch_size=cfg.batch_size, collate_fn=pad_batch, num_workers=4)
for tokens, tags in loader:
    logits = model(tokens.cuda())
    loss = nn.functional.cross_entropy(logits.flatten(0, 1), tags.cuda().flatten())
    loss.backward()
    opt.step()
    opt.zero_grad(set_to_none=True)
