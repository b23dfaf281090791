# TPF008 eval_without_train: a file that freezes parameters still gets the
# finding when eval mode is left over from validation.
import torch
import torch.nn.functional as F


def evaluate(model, loader):
    model.eval()
    with torch.no_grad():
        return sum((model(x).argmax(1) == y).sum().item() for x, y in loader)


# case: frozen backbone, validation inside the epoch loop, train() only once before it
def finetune(model, train_loader, val_loader, epochs):
    model.backbone.requires_grad_(False)
    opt = torch.optim.SGD(model.head.parameters(), lr=0.1)
    model.train()
    for epoch in range(epochs):
        for x, y in train_loader:
            opt.zero_grad()
            F.cross_entropy(model(x), y).backward()
            opt.step()
        model.eval()  # expect: TPF008
        with torch.no_grad():
            for x, y in val_loader:
                print((model(x).argmax(1) == y).float().mean().item())


# case: an optional validation before training leaves eval mode behind
def run(model, train_loader, val_loader, epochs, validate_first):
    for p in model.backbone.parameters():
        p.requires_grad = False
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    if validate_first:
        print(evaluate(model, val_loader))  # expect: TPF008
    for epoch in range(epochs):
        for x, y in train_loader:
            opt.zero_grad()
            F.cross_entropy(model(x), y).backward()
            opt.step()
