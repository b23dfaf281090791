import torch


def drop_gradients(model):
    for p in model.parameters():
        p.grad = None


def evaluate(model, loader):
    model.eval()
    total = 0.0
    for x, y in loader:
        out = model(x)
        total += torch.nn.functional.cross_entropy(out.flatten(0, 1), y.flatten()).item()
    return total
