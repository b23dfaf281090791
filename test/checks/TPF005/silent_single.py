# TPF005 ddp_without_distributed_sampler: no DDP at all.
import torch
import torch.nn.functional as F
from torch.nn import DataParallel
from torch.utils.data import DataLoader

torch.manual_seed(0)


# case: single-process DataParallel splits each batch itself
def main(model, dataset, opt):
    model = DataParallel(model).cuda()
    loader = DataLoader(dataset, batch_size=256, shuffle=True, num_workers=8, pin_memory=True)
    for x, y in loader:
        opt.zero_grad()
        F.cross_entropy(model(x.cuda()), y.cuda()).backward()
        opt.step()
