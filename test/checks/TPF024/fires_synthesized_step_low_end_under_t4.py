# tpf: target=t4
# case: an engine from an installed package runs the step, so one step is synthesized; the peak is over the T4 but the low end of its interval is under it
import torch
from torch import nn

from torchkit.engine import run_epochs


class Tower(nn.Module):
    def __init__(self, width=6144, depth=3, classes=512):
        super().__init__()
        self.stem = nn.Linear(2048, width)
        self.blocks = nn.ModuleList(nn.Linear(width, width) for _ in range(depth))
        self.head = nn.Linear(width, classes)

    def forward(self, x):
        x = torch.relu(self.stem(x))
        for blk in self.blocks:
            x = torch.relu(blk(x))
        return self.head(x)


tower = Tower().cuda()  # expect: TPF024
sgd = torch.optim.SGD(tower.parameters(), lr=0.1, momentum=0.9)
BATCH_SIZE = 80000
run_epochs(tower, sgd, batch_size=BATCH_SIZE, epochs=3)
