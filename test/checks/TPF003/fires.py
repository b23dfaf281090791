# TPF003 backward_without_zero_grad: loops that step without clearing gradients.
import torch
import torch.nn as nn
import torch.nn.functional as F
from tqdm import tqdm


# case: the classic loop with no zero_grad at all
def train(model, loader, optimizer, criterion, device):
    model.train()
    for images, labels in loader:
        images, labels = images.to(device), labels.to(device)
        outputs = model(images)
        loss = criterion(outputs, labels)
        loss.backward()  # expect: TPF003
        optimizer.step()


# case: zero_grad once before the loop is not enough
def fit(net, train_loader, lr=1e-3, epochs=10):
    opt = torch.optim.Adam(net.parameters(), lr=lr)
    opt.zero_grad()
    for epoch in range(epochs):
        for x, y in tqdm(train_loader, desc=f"epoch {epoch}"):
            logits = net(x)
            F.cross_entropy(logits, y).backward()  # expect: TPF003
            opt.step()


# case: zero_grad once per epoch while the optimizer steps every batch
def run_epochs(model, loader, optimizer, scheduler, num_epochs):
    for epoch in range(num_epochs):
        optimizer.zero_grad()
        for step, batch in enumerate(loader):
            loss = model(**batch).loss
            loss.backward()  # expect: TPF003
            optimizer.step()
            scheduler.step()


# case: a helper does backward and step; the loop never clears
def train_step(model, batch, optimizer):
    inputs, targets = batch
    loss = F.mse_loss(model(inputs), targets)
    loss.backward()
    optimizer.step()
    return loss.item()


def train_loop(model, loader, optimizer):
    history = []
    for batch in loader:
        history.append(train_step(model, batch, optimizer))  # expect: TPF003
    return history


# case: mixed precision with a GradScaler and a while loop
def train_amp(model, get_batch, max_iters, optimizer):
    scaler = torch.cuda.amp.GradScaler()
    it = 0
    while it < max_iters:
        x, y = get_batch("train")
        with torch.autocast(device_type="cuda", dtype=torch.float16):
            _, loss = model(x, y)
        scaler.scale(loss).backward()  # expect: TPF003
        scaler.unscale_(optimizer)
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        scaler.step(optimizer)
        scaler.update()
        it += 1


# case: accelerate-style loop without zero_grad
def train_accelerate(accelerator, model, optimizer, train_dataloader, lr_scheduler):
    model.train()
    for batch in train_dataloader:
        outputs = model(**batch)
        loss = outputs.loss
        accelerator.backward(loss)  # expect: TPF003
        optimizer.step()
        lr_scheduler.step()
