# A forward-only loop nested in one that keeps every pass's graph: the
# reachability walk of each inner loop is charged to the budget (83 s without).
import torch
import torch.nn as nn
model = nn.Sequential(nn.Linear(100, 200), nn.ReLU(), nn.Linear(200, 10)).cuda()
opt = torch.optim.Adam(model.parameters())
totals = []
for epoch in range(100000):
    total = 0
    for i in range(9):
        total = total + model(torch.randn(32, 100, device="cuda")).sum()
    totals.append(total)
for step in range(10):
    loss = model(torch.randn(32, 100, device="cuda")).sum()
    loss.backward()
    opt.step()
