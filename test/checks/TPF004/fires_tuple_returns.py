# TPF004 accumulation_without_loss_scaling: the loss is one element of what
# a model's forward or a helper returns (`logits, loss = model(x, y)`),
# read element by element; `loss = None` on the inference path is no
# scaling either.
import torch
import torch.nn as nn
import torch.nn.functional as F


class LM(nn.Module):
    def __init__(self):
        super().__init__()
        self.head = nn.Linear(16, 100)

    def forward(self, x, targets=None):
        logits = self.head(x)
        if targets is not None:
            loss = F.cross_entropy(logits, targets)
        else:
            loss = None
        return logits, loss


def step_loss(model, x, y):
    out = model(x)
    return F.cross_entropy(out, y), out


# case: micro-steps over the (logits, loss) a local module's forward returns
def train(loader, accum):
    model = LM()
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    it = iter(loader)
    for step in range(1000):
        for micro in range(accum):
            x, y = next(it)
            logits, loss = model(x, y)
            loss.backward()  # expect: TPF004
        opt.step()
        opt.zero_grad()


# case: a helper returning (loss, out), stepped every accum batches
def train_helper(model, loader, accum):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for i, (x, y) in enumerate(loader):
        loss, out = step_loss(model, x, y)
        loss.backward()  # expect: TPF004
        if (i + 1) % accum == 0:
            opt.step()
            opt.zero_grad()


# case: the helper's result indexed with [0]
def train_indexed(model, loader, accum):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for i, (x, y) in enumerate(loader):
        res = step_loss(model, x, y)
        res[0].backward()  # expect: TPF004
        if (i + 1) % accum == 0:
            opt.step()
            opt.zero_grad()
