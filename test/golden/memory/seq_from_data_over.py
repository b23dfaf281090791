# tpf: target=t4
"""The same encoder at batch 256 on a T4: at the position table's 1,024 positions the step is over
the T4, but the run's own length comes from its data, so the verdict is unknown and names
--seq-len; with --seq-len the verdict is the run's."""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader

from reviews.data import ReviewDataset, pad_to_longest


class Block(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.norm = nn.LayerNorm(d)
        self.up = nn.Linear(d, 4 * d)
        self.down = nn.Linear(4 * d, d)

    def forward(self, h):
        return h + self.down(F.gelu(self.up(self.norm(h))))


class ReviewEncoder(nn.Module):
    def __init__(self, vocab=32000, d=768, depth=8, max_len=1024, classes=5):
        super().__init__()
        self.tok = nn.Embedding(vocab, d)
        self.position_embeddings = nn.Embedding(max_len, d)
        self.blocks = nn.ModuleList([Block(d) for _ in range(depth)])
        self.head = nn.Linear(d, classes)

    def forward(self, ids):
        pos = torch.arange(ids.shape[1], device=ids.device)
        h = self.tok(ids) + self.position_embeddings(pos)
        for b in self.blocks:
            h = b(h)
        return self.head(h[:, 0])


loader = DataLoader(ReviewDataset("train"), batch_size=256, shuffle=True, collate_fn=pad_to_longest,
                    num_workers=4, pin_memory=True)
model = ReviewEncoder().cuda()
opt = torch.optim.AdamW(model.parameters(), lr=3e-4)
for ids, stars in loader:
    ids, stars = ids.cuda(), stars.cuda()
    loss = F.cross_entropy(model(ids), stars)
    loss.backward()
    opt.step()
    opt.zero_grad()
