# TPF014 zero_grad_before_step: the gradients are cleared before the step applies them.
import torch
import torch.nn.functional as F


# case: zero_grad between backward and step in a plain loop
def train(model, loader, optimizer):
    for x, y in loader:
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        optimizer.zero_grad()  # expect: TPF014
        optimizer.step()


# case: zero_grad on one path only (logging branch) before the step
def train_logging(model, loader, opt, log_every=100):
    for i, (x, y) in enumerate(loader):
        loss = F.mse_loss(model(x), y)
        loss.backward()  # expect: TPF003
        if i % log_every == 0:
            print(loss.item())
            opt.zero_grad(set_to_none=True)  # expect: TPF014
        opt.step()


# case: mixed precision: cleared between scaled backward and scaler.step
def train_amp(model, loader, optimizer):
    scaler = torch.cuda.amp.GradScaler()
    for x, y in loader:
        with torch.autocast("cuda", dtype=torch.float16):
            loss = F.cross_entropy(model(x), y)
        scaler.scale(loss).backward()
        optimizer.zero_grad()  # expect: TPF014
        scaler.step(optimizer)
        scaler.update()


# case: accumulation over micro-batches, cleared after the inner loop
def train_micro(model, batches, optimizer, epochs):
    for epoch in range(epochs):
        for micro in batches:
            (model(micro).mean() / len(batches)).backward()
        optimizer.zero_grad()  # expect: TPF014
        optimizer.step()


# case: a single training step function, no loop
def train_step(model, x, y, sgd):
    out = model(x)
    loss = F.nll_loss(out, y)
    loss.backward()
    sgd.zero_grad()  # expect: TPF014
    sgd.step()
    return loss.detach()


# case: an optimizer built here, zero_grad after clipping
def fit(model, loader, lr):
    adam = torch.optim.Adam(model.parameters(), lr=lr)
    for x, y in loader:
        F.l1_loss(model(x), y).backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        adam.zero_grad()  # expect: TPF014
        adam.step()
