# case: the tight batch 150, but no --target: nothing to compare with
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
net = nn.Sequential(
    nn.Conv2d(3, 64, 3, padding=1), nn.BatchNorm2d(64), nn.ReLU(),
    nn.Conv2d(64, 128, 3, padding=1), nn.BatchNorm2d(128), nn.ReLU(),
    nn.MaxPool2d(2),
    nn.Conv2d(128, 256, 3, padding=1), nn.BatchNorm2d(256), nn.ReLU(),
    nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(256, 100),
).cuda()
opt = torch.optim.SGD(net.parameters(), lr=0.1, momentum=0.9)
crit = nn.CrossEntropyLoss()
ds = TensorDataset(torch.randn(512, 3, 160, 160), torch.randint(0, 100, (512,)))
loader = DataLoader(ds, batch_size=150, shuffle=True, num_workers=4, pin_memory=True)
for epoch in range(3):
    for x, y in loader:
        x, y = x.cuda(non_blocking=True), y.cuda(non_blocking=True)
        opt.zero_grad(set_to_none=True)
        loss = crit(net(x), y)
        loss.backward()
        opt.step()
