import torch
from tools.sched.__init__ import Warmup

torch.manual_seed(0)
net = torch.nn.Sequential(torch.nn.Linear(16, 16), torch.nn.Tanh(), torch.nn.Linear(16, 1))
opt = torch.optim.SGD(net.parameters(), lr=0.05)
warm = Warmup(opt, steps=10)
history = []
for epoch in range(5):
    x = torch.randn(32, 16)
    loss = net(x).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    warm.advance(net)
    history.append(loss)
