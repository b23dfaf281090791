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


# case: the plain MLP handed to a no_grad evaluation helper
@torch.no_grad()
def evaluate(model, loader):
    return sum((model(x).argmax(1) == y).sum().item() for x, y in loader)


def fit(train_loader, val_loader, epochs):
    model = Mlp()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for epoch in range(epochs):
        for x, y in train_loader:
            opt.zero_grad()
            F.cross_entropy(model(x), y).backward()
            opt.step()
        print(evaluate(model, val_loader))
