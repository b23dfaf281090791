# TPF017 must stay silent: autocast that needs no scaler in a file without one.
import torch
import torch.nn.functional as F


# case: bfloat16 autocast needs no loss scaling
def train(model, loader, optimizer):
    for x, y in loader:
        optimizer.zero_grad()
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = F.cross_entropy(model(x), y)
        loss.backward()
        optimizer.step()


# case: CPU autocast (bfloat16 by default)
def train_cpu(model, loader, optimizer):
    for x, y in loader:
        with torch.autocast("cpu"):
            loss = model(x, y)
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()


# case: fp16 autocast for evaluation only: no backward in the loop
@torch.no_grad()
def evaluate(model, loader):
    total = 0.0
    for x, y in loader:
        with torch.autocast("cuda", dtype=torch.float16):
            total += F.cross_entropy(model(x), y).item()
    return total


# case: the device and dtype come from the configuration
def train_config(model, loader, optimizer, device_type, ptdtype):
    for x, y in loader:
        with torch.autocast(device_type=device_type, dtype=ptdtype):
            loss = model(x, y)
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()


# case: autocast disabled by a constant
def train_disabled(model, loader, optimizer):
    for x, y in loader:
        with torch.cuda.amp.autocast(enabled=False):
            loss = model(x, y)
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
