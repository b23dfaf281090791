# TPF018 fires: the mode is set on the members of another container, not
# on the model that is validated.
import torch
from torch import nn


def train(model, helpers, train_loader, val_loader, opt):
    for x, y in train_loader:
        opt.zero_grad()
        nn.functional.cross_entropy(model(x), y).backward()
        opt.step()
    # case: every helper in eval mode, the trained model left in train mode
    _ = [helpers[k].eval() for k in helpers]
    with torch.no_grad():
        for x, y in val_loader:
            print((model(x).argmax(1) == y).float().mean().item())  # expect: TPF018


# case: a tuple of other models
def distill(student, teacher, critic, train_loader, val_loader, opt):
    for x, _ in train_loader:
        opt.zero_grad()
        nn.functional.mse_loss(student(x), teacher(x)).backward()
        opt.step()
    for net in (teacher, critic):
        net.eval()
    with torch.no_grad():
        for x, _ in val_loader:
            print(student(x).norm().item())  # expect: TPF018
