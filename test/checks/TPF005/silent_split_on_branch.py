# TPF005 silent: a text-pretraining script that shards its token files per
# rank only when it runs on several processes. On one process the whole
# list is its share; on several each rank reads its own slice, so no two
# ranks train on the same batches.
import glob
import os

import torch
import torch.distributed as dist
from torch import nn
from torch.utils.data import DataLoader, IterableDataset


class TokenFiles(IterableDataset):
    def __init__(self, paths, block):
        self.paths, self.block = paths, block

    def __iter__(self):
        for p in self.paths:
            ids = torch.load(p, weights_only=True)
            for i in range(0, ids.numel() - self.block, self.block):
                yield ids[i : i + self.block]


def main():
    multi = int(os.environ.get("WORLD_SIZE", "1")) > 1
    if multi:
        dist.init_process_group("nccl")
    files = sorted(glob.glob("tokens/*.pt"))
    if multi:
        files = files[dist.get_rank() :: dist.get_world_size()]
    loader = DataLoader(TokenFiles(files, 512), batch_size=8, num_workers=4, pin_memory=True)
    net = nn.Sequential(nn.Embedding(50304, 256), nn.Linear(256, 50304)).cuda()
    model = nn.parallel.DistributedDataParallel(net) if multi else net
    opt = torch.optim.AdamW(model.parameters(), lr=3e-4)
    torch.manual_seed(0)
    for ids in loader:
        ids = ids.cuda(non_blocking=True)
        logits = model(ids[:, :-1])
        loss = nn.functional.cross_entropy(logits.flatten(0, 1), ids[:, 1:].flatten())
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()


if __name__ == "__main__":
    main()
