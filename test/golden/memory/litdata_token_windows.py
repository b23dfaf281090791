# tpf: target=l4
"""Pretraining on token windows streamed by litdata: a `StreamingDataset` whose
`TokensLoader(block_size=...)` cuts windows of BLOCK + 1 ids from optimized chunks, mixed by
a `CombinedStreamingDataset` and batched by a `StreamingDataLoader`. Each batch is
(16, 513) int32 ids; the model sees 512 positions. torch 1.13 counts 23,426,304 parameters."""
import torch
import torch.nn as nn
import torch.nn.functional as F
from litdata import CombinedStreamingDataset, StreamingDataLoader, StreamingDataset, TokensLoader

BLOCK = 512
VOCAB = 16384


class TinyLM(nn.Module):
    def __init__(self, vocab=VOCAB, dim=384, layers=6, heads=6):
        super().__init__()
        self.tok = nn.Embedding(vocab, dim)
        self.pos = nn.Embedding(BLOCK, dim)
        layer = nn.TransformerEncoderLayer(dim, heads, 4 * dim, dropout=0.0, batch_first=True, norm_first=True)
        self.blocks = nn.TransformerEncoder(layer, layers)
        self.head = nn.Linear(dim, vocab, bias=False)

    def forward(self, idx):
        t = idx.shape[1]
        x = self.tok(idx) + self.pos(torch.arange(t, device=idx.device))
        mask = torch.triu(torch.full((t, t), float("-inf"), device=idx.device), diagonal=1)
        return self.head(self.blocks(x, mask=mask))


def windows(path):
    return StreamingDataset(input_dir=path, item_loader=TokensLoader(block_size=BLOCK + 1), shuffle=True, drop_last=True)


mix = CombinedStreamingDataset(datasets=[windows("s3://corpus/web"), windows("s3://corpus/code")], weights=(0.7, 0.3))
loader = StreamingDataLoader(mix, batch_size=16, num_workers=8, pin_memory=True, drop_last=True)

model = TinyLM().cuda()
opt = torch.optim.AdamW(model.parameters(), lr=6e-4, weight_decay=0.1)
for step, batch in enumerate(loader):
    batch = batch.cuda(non_blocking=True).long()
    inputs, targets = batch[:, :-1], batch[:, 1:]
    logits = model(inputs)
    loss = F.cross_entropy(logits.reshape(-1, VOCAB), targets.reshape(-1))
    loss.backward()
    opt.step()
    opt.zero_grad(set_to_none=True)
    if step == 20000:
        break
