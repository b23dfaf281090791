# TPF017 must stay silent: scaled gradients unscaled before the clip, bf16.
import torch
import torch.nn.functional as F


# case: unscale_ before the clip
def train(model, loader, optimizer):
    scaler = torch.cuda.amp.GradScaler()
    for x, y in loader:
        optimizer.zero_grad()
        with torch.autocast("cuda", dtype=torch.float16):
            loss = F.cross_entropy(model(x), y)
        scaler.scale(loss).backward()
        scaler.unscale_(optimizer)
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        scaler.step(optimizer)
        scaler.update()


# case: clip after the scaler's step belongs to no scaled gradients
def train_no_clip(model, loader, optimizer, scaler):
    for x, y in loader:
        scaler.scale(model(x, y)).backward()
        scaler.step(optimizer)
        scaler.update()
        optimizer.zero_grad()


# case: unscale_ and clip only under the same condition
def train_cond(model, loader, optimizer, scaler, max_norm):
    for x, y in loader:
        scaler.scale(model(x, y)).backward()
        if max_norm:
            scaler.unscale_(optimizer)
            torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)
        scaler.step(optimizer)
        scaler.update()
        optimizer.zero_grad()


# case: clipping in a helper of the file is not followed
def clip_all(model, optimizer, scaler):
    scaler.unscale_(optimizer)
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)


def train_helper(model, loader, optimizer, scaler):
    for x, y in loader:
        scaler.scale(model(x, y)).backward()
        clip_all(model, optimizer, scaler)
        scaler.step(optimizer)
        scaler.update()


# case: clip without any scaler: plain fp32 training
def train_fp32(model, loader, optimizer):
    for x, y in loader:
        model(x, y).backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        optimizer.zero_grad()
