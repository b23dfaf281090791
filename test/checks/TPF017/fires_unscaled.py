# TPF017 fp16_grad_scaling: float16 autocast training with no loss scaling in the file.
import torch
import torch.nn.functional as F


# case: torch.autocast on CUDA defaults to float16
def train(model, loader, optimizer):
    for x, y in loader:
        optimizer.zero_grad()
        with torch.autocast("cuda"):  # expect: TPF017
            loss = F.cross_entropy(model(x), y)
        loss.backward()
        optimizer.step()


# case: torch.cuda.amp.autocast() defaults to float16
def train_legacy(model, loader, optimizer):
    for x, y in loader:
        optimizer.zero_grad()
        with torch.cuda.amp.autocast():  # expect: TPF017
            out = model(x)
            loss = F.mse_loss(out, y)
        loss.backward()
        optimizer.step()


# case: an explicit float16 dtype, keyword device_type
def train_explicit(model, loader, optimizer, steps):
    for step in range(steps):
        for x, y in loader:
            with torch.amp.autocast(device_type="cuda", dtype=torch.float16):  # expect: TPF017
                loss = model(x, y)
            loss.backward()
            optimizer.step()
            optimizer.zero_grad()


# case: torch.half, enabled by a flag
def train_flag(model, loader, optimizer, use_amp):
    for x, y in loader:
        with torch.autocast("cuda", dtype=torch.half, enabled=use_amp):  # expect: TPF017
            loss = model(x, y)
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
