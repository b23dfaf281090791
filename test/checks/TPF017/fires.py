# TPF017 fp16_grad_scaling: clipping scaled gradients.
import torch
from torch.nn.utils import clip_grad_norm_


# case: clip right after the scaled backward, no unscale_
def train(model, loader, optimizer):
    scaler = torch.cuda.amp.GradScaler()
    for x, y in loader:
        optimizer.zero_grad()
        with torch.autocast("cuda", dtype=torch.float16):
            loss = torch.nn.functional.cross_entropy(model(x), y)
        scaler.scale(loss).backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)  # expect: TPF017
        scaler.step(optimizer)
        scaler.update()


# case: clip by value under a condition, torch.amp.GradScaler
def train_value(model, loader, opt, clip):
    scaler = torch.amp.GradScaler("cuda")
    for x, y in loader:
        opt.zero_grad(set_to_none=True)
        with torch.amp.autocast("cuda"):
            loss = model(x, y)
        scaler.scale(loss).backward()
        if clip > 0:
            torch.nn.utils.clip_grad_value_(model.parameters(), clip)  # expect: TPF017
        scaler.step(opt)
        scaler.update()


# case: unscale_ only on some paths before the clip
def train_some(model, loader, opt, scaler, accumulate):
    for x, y in loader:
        loss = model(x, y)
        scaler.scale(loss).backward()
        if not accumulate:
            scaler.unscale_(opt)
        clip_grad_norm_(model.parameters(), max_norm=0.5)  # expect: TPF017
        scaler.step(opt)
        scaler.update()
        opt.zero_grad()


# case: a single step function with the scaler passed in
def step(model, batch, optimizer, scaler):
    with torch.cuda.amp.autocast():
        loss = model(**batch).loss
    scaler.scale(loss).backward()
    clip_grad_norm_(model.parameters(), 1.0)  # expect: TPF017
    scaler.step(optimizer)
    scaler.update()
    optimizer.zero_grad()
