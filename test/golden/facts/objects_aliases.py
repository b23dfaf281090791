# tpf: facts=objects
# Objects by allocation site: wrappers and helpers alias them, an optimizer
# knows which models it steps, a frozen part is marked, parts of a model
# the file never assigns are made on use.
import deepspeed
import torch
import torch.nn as nn
from accelerate import Accelerator
from tqdm import tqdm


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.backbone = nn.Sequential(nn.Conv2d(3, 8, 3), nn.BatchNorm2d(8))
        self.head = nn.Linear(8, 2)


def make_optimizer(params, lr):
    return torch.optim.AdamW(params, lr=lr)


model = Net().cuda()
model.backbone.requires_grad_(False)
opt = make_optimizer([{"params": model.head.parameters()}], 1e-3)
loader = torch.utils.data.DataLoader(range(8), batch_size=2)
acc = Accelerator()
model, opt, loader = acc.prepare(model, opt, loader)
for i, batch in enumerate(tqdm(loader)):
    pass
engine, ds_opt, _, _ = deepspeed.initialize(model=nn.Linear(2, 2))
ref = load_reference()
ref.eval()
