# TPF001 loss_appended_with_graph: graph-carrying tensors kept across iterations.
import torch
import torch.nn as nn
import torch.nn.functional as F
from tqdm import tqdm


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(784, 10)

    def forward(self, x):
        return self.fc(x.flatten(1))


# case: the loss appended after its backward (warning: the graph's nodes stay alive)
def train(model, loader, optimizer, criterion, device):
    losses = []
    for images, labels in tqdm(loader):
        images, labels = images.to(device), labels.to(device)
        optimizer.zero_grad()
        loss = criterion(model(images), labels)
        loss.backward()
        optimizer.step()
        losses.append(loss)  # expect: TPF001
    return losses


# case: a running total of the loss tensor, renamed, reset per epoch
def fit(net, train_loader, opt, epochs):
    for epoch in range(epochs):
        running = 0.0
        for step, (x, y) in enumerate(train_loader):
            opt.zero_grad()
            batch_loss = F.cross_entropy(net(x), y)
            batch_loss.backward()
            opt.step()
            running += batch_loss  # expect: TPF001
        print(f"epoch {epoch}: {running / (step + 1):.4f}")


# case: a history dict on the trainer object
class Trainer:
    def __init__(self, model, optimizer):
        self.model = model
        self.optimizer = optimizer
        self.history = {"loss": []}

    def train_epoch(self, loader):
        for batch in loader:
            self.optimizer.zero_grad()
            out = self.model(**batch)
            out.loss.backward()
            self.optimizer.step()
            self.history["loss"].append(out.loss)  # expect: TPF001


# case: model outputs kept with autograd on and no backward at all (error: activations stay)
def collect_predictions(val_loader):
    model = Net()
    preds = []
    for x, _ in val_loader:
        logits = model(x)
        preds.append(logits)  # expect: TPF001
    print(torch.cat(preds).argmax(1).float().mean().item())


# case: per-step losses in a dict that outlives the loop
def train_logged(model, loader, optimizer, loss_fn):
    history = {}
    for step, (x, y) in enumerate(loader):
        optimizer.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        optimizer.step()
        history[step] = loss  # expect: TPF001
    return history
