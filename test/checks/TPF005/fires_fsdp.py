# TPF005 ddp_without_distributed_sampler: FSDP, same mistake.
import torch
import torch.nn.functional as F
from torch.distributed.fsdp import FullyShardedDataParallel as FSDP
from torch.utils.data import DataLoader

torch.manual_seed(0)


# case: FSDP-wrapped model, shuffled loader without a sampler
def train(model, dataset, args):
    model = FSDP(model)
    loader = DataLoader(dataset, batch_size=args.batch_size, shuffle=True,  # expect: TPF005
                        num_workers=args.workers, pin_memory=True)
    optim = torch.optim.AdamW(model.parameters(), lr=args.lr)
    for epoch in range(args.epochs):
        for inputs, labels in loader:
            optim.zero_grad()
            F.cross_entropy(model(inputs.cuda()), labels.cuda()).backward()
            optim.step()
