# TPF010 partial_seeding: a script that uses only torch and seeds it.
import torch
import torch.nn as nn
import torch.nn.functional as F


# case: torch.manual_seed and nothing else random
def main():
    torch.manual_seed(42)
    model = nn.Sequential(nn.Linear(10, 32), nn.ReLU(), nn.Dropout(0.1), nn.Linear(32, 1))
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    x, y = torch.randn(256, 10), torch.randn(256, 1)
    for epoch in range(20):
        perm = torch.randperm(256)
        for i in range(0, 256, 32):
            idx = perm[i:i + 32]
            opt.zero_grad()
            F.mse_loss(model(x[idx]), y[idx]).backward()
            opt.step()
