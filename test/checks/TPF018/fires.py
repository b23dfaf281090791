# TPF018 validation_in_train_mode: evaluation after training without model.eval().
import torch
import torch.nn as nn
import torch.nn.functional as F


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 4)
        self.drop = nn.Dropout(0.5)

    def forward(self, x):
        return self.fc(self.drop(x))


# case: validation at the end of each epoch, no eval()
def train(model, train_loader, val_loader, optimizer, epochs):
    for epoch in range(epochs):
        model.train()
        for x, y in train_loader:
            optimizer.zero_grad()
            F.cross_entropy(model(x), y).backward()
            optimizer.step()
        correct = 0
        with torch.no_grad():
            for x, y in val_loader:
                correct += (model(x).argmax(1) == y).sum().item()  # expect: TPF018
        print(correct)


# case: an evaluate() helper that never calls eval(), called after training
@torch.no_grad()
def evaluate(net, loader):
    total = 0.0
    for x, y in loader:
        total += F.mse_loss(net(x), y).item()
    return total / len(loader)


def fit(net, train_loader, val_loader, opt, epochs):
    for epoch in range(epochs):
        for x, y in train_loader:
            opt.zero_grad()
            F.mse_loss(net(x), y).backward()
            opt.step()
        print(evaluate(net, val_loader))  # expect: TPF018


# case: a local nn.Module trained and validated under inference_mode
def main(train_loader, val_loader):
    model = Net()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for x, y in train_loader:
        opt.zero_grad()
        F.cross_entropy(model(x), y).backward()
        opt.step()
    with torch.inference_mode():
        for x, y in val_loader:
            print(F.cross_entropy(model(x), y).item())  # expect: TPF018


# case: training and evaluation both in helpers
def train_one_epoch(model, loader, optimizer):
    model.train()
    for x, y in loader:
        optimizer.zero_grad()
        F.cross_entropy(model(x), y).backward()
        optimizer.step()


def validate(model, loader):
    accs = []
    with torch.no_grad():
        for x, y in loader:
            accs.append((model(x).argmax(1) == y).float().mean().item())
    return sum(accs) / len(accs)


def run(model, train_loader, val_loader, optimizer, epochs):
    for epoch in range(epochs):
        train_one_epoch(model, train_loader, optimizer)
        acc = validate(model, val_loader)  # expect: TPF018
        print(epoch, acc)


# case: periodic validation inside the step loop, model.train() only once before it
def train_steps(model, train_loader, val_loader, opt, every):
    model.train()
    for step, (x, y) in enumerate(train_loader):
        opt.zero_grad()
        F.cross_entropy(model(x), y).backward()
        opt.step()
        if step % every == 0:
            with torch.no_grad():
                for vx, vy in val_loader:
                    print(F.cross_entropy(model(vx), vy).item())  # expect: TPF018
