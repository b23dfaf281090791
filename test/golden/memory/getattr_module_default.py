# tpf: target=h100
"""Optional features read with getattr(module, name, default), as config-free model code does:
`getattr(self, "use_wide_head", False)` on an nn.Module that never sets the attribute is the
default (nn.Module.__getattr__ raises AttributeError, so getattr returns False), while
`getattr(self, "width", 0)` reads the attribute __init__ set, and `getattr(net, "train", None)`
finds nn.Module's own method. torch 1.13 counts 16*64+64 + 64*10+10 = 1,738 parameters."""
import torch
import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.width = 64
        self.body = nn.Linear(16, getattr(self, "width", 0))
        hidden = 4096 if getattr(self, "use_wide_head", False) else self.width
        self.head = nn.Linear(hidden, 10)

    def forward(self, x):
        return self.head(self.body(x).relu())


net = Net().cuda()
if getattr(net, "train", None) is None:
    raise SystemExit("nn.Module without train()")
opt = torch.optim.SGD(net.parameters(), lr=0.1)
for step in range(10):
    x, y = torch.randn(32, 16, device="cuda"), torch.randint(0, 10, (32,), device="cuda")
    loss = nn.functional.cross_entropy(net(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
