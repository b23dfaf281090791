# TPF012 dataloader_without_workers: a CPU-only training script; workers
# and pinned memory are a GPU concern.
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)


# case: CPU training with the default loader
def main():
    data = TensorDataset(torch.randn(256, 4), torch.randn(256, 1))
    loader = DataLoader(data, batch_size=32, shuffle=True)
    model = nn.Linear(4, 1)
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    for epoch in range(5):
        for x, y in loader:
            opt.zero_grad()
            F.mse_loss(model(x), y).backward()
            opt.step()
