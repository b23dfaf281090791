# TPF008 eval_without_train: the eval() is one or two helpers deep; the
# finding is at the call in the training loop (where train() must be
# restored), and its notes walk the chain down to the eval() itself.
import torch
import torch.nn as nn
import torch.nn.functional as F


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 4)
        self.drop = nn.Dropout(0.2)

    def forward(self, x):
        return self.fc(self.drop(x))


def predict(model, loader):
    model.eval()
    with torch.no_grad():
        return [model(x).argmax(1) for x, _ in loader]


def validate(model, loader):
    return len(predict(model, loader))


# case: validate() -> predict() -> model.eval(), called every epoch after train() once
def train(loader, val_loader):
    model = Net()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    model.train()
    for epoch in range(10):
        for x, y in loader:
            opt.zero_grad()
            F.cross_entropy(model(x), y).backward()
            opt.step()
        validate(model, val_loader)  # expect: TPF008


class Trainer:
    def __init__(self, loader):
        self.model = Net()
        self.optim = torch.optim.Adam(self.model.parameters())
        self.loader = loader

    def validate(self):
        self.model.eval()
        with torch.no_grad():
            for x, y in self.loader:
                self.model(x)

    # case: a trainer validating every 100 iterations inside its batch loop
    def train_epoch(self):
        self.model.train()
        for i, (x, y) in enumerate(self.loader):
            if i % 100 == 0:
                self.validate()  # expect: TPF008
            self.optim.zero_grad()
            F.cross_entropy(self.model(x), y).backward()
            self.optim.step()
