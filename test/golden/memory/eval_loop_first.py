# tpf: target=l4
"""A regression MLP that is evaluated before its first step, over 200,000 held-out batches
under torch.no_grad(). Two passes of that loop show its memory; the rest would spend the
interpreter's step budget before training starts. The estimate is the training step's."""
import torch
import torch.nn as nn

features, batch = 512, 256
model = nn.Sequential(nn.Linear(features, 2048), nn.SiLU(), nn.Linear(2048, 2048), nn.SiLU(),
                      nn.Linear(2048, 1)).cuda()
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)


@torch.no_grad()
def validate(batches=200_000):
    model.eval()
    total = 0.0
    for i in range(batches):
        x = torch.randn(batch, features, device="cuda")
        total += model(x).square().mean().item()
    model.train()
    return total / batches


for epoch in range(100):
    print(epoch, validate())
    x = torch.randn(batch, features, device="cuda")
    y = torch.randn(batch, 1, device="cuda")
    loss = nn.functional.mse_loss(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
