# TPF008 eval_without_train: training continues in eval mode.
import torch
import torch.nn as nn
import torch.nn.functional as F


# case: train() once before the epoch loop, eval() for validation inside it
def fit(model, train_loader, val_loader, optimizer, epochs):
    model.train()
    for epoch in range(epochs):
        for x, y in train_loader:
            optimizer.zero_grad()
            F.cross_entropy(model(x), y).backward()
            optimizer.step()
        model.eval()  # expect: TPF008
        with torch.no_grad():
            correct = sum((model(x).argmax(1) == y).sum().item() for x, y in val_loader)
        print(f"epoch {epoch}: {correct}")


# case: a validation helper that leaves the model in eval mode
def validate(model, loader, criterion):
    model.eval()
    total = 0.0
    with torch.no_grad():
        for x, y in loader:
            total += criterion(model(x), y).item()
    return total / len(loader)


def train_with_validation(model, train_loader, val_loader, optimizer, criterion, epochs=10):
    model.train()
    for epoch in range(epochs):
        for x, y in train_loader:
            optimizer.zero_grad()
            loss = criterion(model(x), y)
            loss.backward()
            optimizer.step()
        val_loss = validate(model, val_loader, criterion)  # expect: TPF008
        print(epoch, val_loss)


# case: periodic evaluation inside the step loop
def train_steps(model, loader, optimizer, eval_every=500):
    model.train()
    for step, (x, y) in enumerate(loader):
        optimizer.zero_grad()
        F.mse_loss(model(x), y).backward()
        optimizer.step()
        if step % eval_every == 0:
            model.eval()  # expect: TPF008
            with torch.no_grad():
                print(step, F.mse_loss(model(x), y).item())


# case: a baseline evaluation before training, then no train()
def finetune(model, loader, optimizer, evaluate):
    model.eval()  # expect: TPF008
    baseline = evaluate(model)
    for epoch in range(3):
        for batch in loader:
            optimizer.zero_grad()
            model(**batch).loss.backward()
            optimizer.step()
    return baseline


# case: a trainer class, eval on self.model between epochs
class Trainer:
    def __init__(self, model, optimizer, loader):
        self.model = model
        self.optimizer = optimizer
        self.loader = loader

    def train_epoch(self):
        for x, y in self.loader:
            self.optimizer.zero_grad()
            F.cross_entropy(self.model(x), y).backward()
            self.optimizer.step()

    def fit(self, epochs):
        self.model.train()
        for epoch in range(epochs):
            self.train_epoch()
            self.model.eval()  # expect: TPF008
            self.log_metrics(epoch)

    def log_metrics(self, epoch):
        print(epoch)
