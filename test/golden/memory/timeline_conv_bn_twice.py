# tpf: target=t4 torch-version=1.13 timeline
"""Issue 19's stale-graph case: Conv -> BN -> ReLU(inplace) run twice in one
step (a discriminator on a real and a fake batch), one backward of both."""
import torch
import torch.nn as nn

net = nn.Sequential(nn.Conv2d(3, 64, 3, padding=1), nn.BatchNorm2d(64), nn.ReLU(inplace=True),
                    nn.Flatten(), nn.Linear(64 * 32 * 32, 1)).cuda()
opt = torch.optim.Adam(net.parameters(), lr=2e-4)
crit = nn.BCEWithLogitsLoss()

for step in range(10):
    real = torch.randn(32, 3, 32, 32, device="cuda")
    fake = torch.randn(32, 3, 32, 32, device="cuda")
    opt.zero_grad()
    err_real = crit(net(real).squeeze(1), torch.ones(32, device="cuda"))
    err_fake = crit(net(fake).squeeze(1), torch.zeros(32, device="cuda"))
    (err_real + err_fake).backward()
    opt.step()
