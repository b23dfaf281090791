# --add-noqa and --statistics golden: two TPF003 findings, one with a safe
# fix and one without (the `[-]` row), the second inside brackets, where the
# comment stays on the finding's own line.
import torch.nn.functional as F


def train(model, loader, optimizer, criterion):
    for images, labels in loader:
        loss = criterion(model(images), labels)
        loss.backward()
        optimizer.step()


def train_step(model, batch, optimizer):
    inputs, targets = batch
    loss = F.mse_loss(model(inputs), targets)
    loss.backward()
    optimizer.step()
    return loss.item()


def train_loop(model, loader, optimizer):
    history = []
    for batch in loader:
        history.append(
            train_step(model, batch, optimizer),
        )
    return history
