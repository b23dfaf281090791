# TPF004 fires: the gradients are read after the micro-steps, to log their norm, but never
# rescaled: each step still applies the sum of `accum` gradients (Adam with L2
# weight_decay: the summed gradient outweighs the decay term `accum` times).
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)

model = nn.Linear(16, 4)
opt = torch.optim.Adam(model.parameters(), lr=1e-3, weight_decay=1e-2)
accum = 8
batches = iter([])
for step in range(1000):
    for micro in range(accum):
        x, y = next(batches)
        F.cross_entropy(model(x), y).backward()  # expect: TPF004
    norms = [p.grad.norm().item() for p in model.parameters()]
    print(step, max(norms))
    opt.step()
    opt.zero_grad()
