# tpf: target=t4
"""Learns the weekday of a date from its text "YYYY-MM-DD". Each sample formats a drawn day
number with an f-string and looks its characters up one by one, so the interpreter knows
neither the text nor how many ids the comprehension gives: `torch.tensor(ids)` has an
unknown shape, never a 0-d one (which made each batch 512 scalars and the step's
activations a few bytes). The model's input is synthesized instead: the loader's batch by
the position table's 10 positions."""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset

SYMBOLS = "0123456789-"


class DateTexts(Dataset):
    def __init__(self, n, seed=0):
        self.days = torch.randint(0, 200 * 365, (n,), generator=torch.Generator().manual_seed(seed))

    def __len__(self):
        return len(self.days)

    def __getitem__(self, i):
        day = self.days[i].item()
        year, rest = divmod(day, 365)
        text = f"{1900 + year:04d}-{rest // 31 + 1:02d}-{rest % 31 + 1:02d}"
        ids = torch.tensor([SYMBOLS.index(c) for c in text], dtype=torch.long)
        return ids, torch.tensor(day % 7)


class CharReader(nn.Module):
    def __init__(self, width=96, length=10, heads=4):
        super().__init__()
        self.tok = nn.Embedding(len(SYMBOLS), width)
        self.position = nn.Embedding(length, width)
        self.attn = nn.MultiheadAttention(width, heads, batch_first=True)
        self.norm = nn.LayerNorm(width)
        self.head = nn.Linear(width, 7)

    def forward(self, ids):
        h = self.tok(ids) + self.position(torch.arange(ids.shape[1], device=ids.device))
        h = self.norm(h + self.attn(h, h, h, need_weights=False)[0])
        return self.head(h.mean(1))


model = CharReader().cuda()
opt = torch.optim.Adam(model.parameters(), lr=3e-4)
for ids, weekday in DataLoader(DateTexts(100_000), batch_size=512, shuffle=True):
    loss = F.cross_entropy(model(ids.cuda()), weekday.cuda())
    opt.zero_grad(set_to_none=True)
    loss.backward()
    opt.step()
