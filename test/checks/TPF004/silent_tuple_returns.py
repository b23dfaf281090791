# TPF004 accumulation_without_loss_scaling: tuple returns whose loss
# element is divided, or whose other element is (the loss is not).
import torch
import torch.nn.functional as F


def step_loss(model, x, y, accum):
    out = model(x)
    return F.cross_entropy(out, y) / accum, out


def scaled_out(model, x, y, accum):
    out = model(x)
    return out / accum, F.cross_entropy(out, y) / accum


# case: the helper divides the loss element it returns
def train_helper(model, loader, accum):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for i, (x, y) in enumerate(loader):
        loss, out = step_loss(model, x, y, accum)
        loss.backward()
        if (i + 1) % accum == 0:
            opt.step()
            opt.zero_grad()


# case: both elements divided, the second one backwarded
def train_second(model, loader, accum):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for i, (x, y) in enumerate(loader):
        out, loss = scaled_out(model, x, y, accum)
        loss.backward()
        if (i + 1) % accum == 0:
            opt.step()
            opt.zero_grad()


# case: the element taken by [0] is divided
def train_indexed(model, loader, accum):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for i, (x, y) in enumerate(loader):
        step_loss(model, x, y, accum)[0].backward()
        if (i + 1) % accum == 0:
            opt.step()
            opt.zero_grad()


# case: micro-steps over a helper that divides by the count
def train_micro(model, loader, accum):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    it = iter(loader)
    for step in range(100):
        for micro in range(accum):
            x, y = next(it)
            loss, _ = step_loss(model, x, y, accum)
            loss.backward()
        opt.step()
        opt.zero_grad()
