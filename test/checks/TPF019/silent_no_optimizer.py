# TPF019 silent: repeated passes over a distributed evaluation loader in a
# file that steps no optimizer. The backward passes only score attention
# heads or input features (gradients of a mask); the sums do not depend on
# the order of the batches, and no model is trained.
import argparse

import torch
from torch.utils.data import DataLoader, DistributedSampler, SequentialSampler, TensorDataset


def head_importance(model, loader, head_mask):
    scores = torch.zeros_like(head_mask)
    for x, y in loader:
        mask = head_mask.clone().requires_grad_(True)
        loss = torch.nn.functional.cross_entropy(model(x * mask), y)
        loss.backward()
        scores += mask.grad.abs()
    return scores


parser = argparse.ArgumentParser()
parser.add_argument("--local_rank", type=int, default=-1)
args = parser.parse_args()
torch.manual_seed(0)
data = TensorDataset(torch.randn(256, 16), torch.randint(0, 3, (256,)))
model = torch.nn.Linear(16, 3)

# case: pruning rounds, each scoring heads over the whole loader
sampler = SequentialSampler(data) if args.local_rank == -1 else DistributedSampler(data)
loader = DataLoader(data, sampler=sampler, batch_size=32)
mask = torch.ones(16)
while mask.sum() > 4:
    scores = head_importance(model, loader, mask)
    mask[scores.argmin()] = 0

# case: saliency over a distributed loader, several rounds, inline
eval_loader = DataLoader(data, sampler=DistributedSampler(data), batch_size=32)
for round_ in range(3):
    for x, y in eval_loader:
        x = x.clone().requires_grad_(True)
        torch.nn.functional.cross_entropy(model(x), y).backward()
        print(round_, x.grad.abs().mean())
