# TPF018 must stay silent: the file's model has no dropout or norm layer.
import torch
import torch.nn as nn
import torch.nn.functional as F


class Mlp(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(8, 16)
        self.fc2 = nn.Linear(16, 4)

    def forward(self, x):
        return self.fc2(F.relu(self.fc1(x)))


# case: a plain MLP validated without eval(): both modes compute the same
def main(train_loader, val_loader):
    model = Mlp()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for x, y in train_loader:
        opt.zero_grad()
        F.cross_entropy(model(x), y).backward()
        opt.step()
    with torch.no_grad():
        for x, y in val_loader:
            print(F.cross_entropy(model(x), y).item())
