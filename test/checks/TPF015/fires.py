# TPF015 lr_scheduler_step_misplaced: scheduler before optimizer, epoch schedules per batch.
import torch
import torch.nn.functional as F
from torch.optim.lr_scheduler import ExponentialLR, MultiStepLR, ReduceLROnPlateau, StepLR


# case: the old (pre-1.1) order, scheduler at the top of the epoch
def train(model, loader, epochs):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=epochs)
    for epoch in range(epochs):
        scheduler.step()  # expect: TPF015
        for x, y in loader:
            optimizer.zero_grad()
            F.cross_entropy(model(x), y).backward()
            optimizer.step()


# case: a per-batch schedule stepped before the optimizer in the batch loop
def train_warmup(model, loader, total_steps):
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=1e-3, total_steps=total_steps)
    for x, y in loader:
        optimizer.zero_grad()
        loss = F.mse_loss(model(x), y)
        loss.backward()
        scheduler.step()  # expect: TPF015
        optimizer.step()


# case: StepLR in epochs stepped every batch
def train_step_lr(model, loader, epochs):
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    sched = StepLR(opt, step_size=30, gamma=0.1)
    for epoch in range(epochs):
        for x, y in loader:
            opt.zero_grad()
            F.cross_entropy(model(x), y).backward()
            opt.step()
            sched.step()  # expect: TPF015


# case: MultiStepLR milestones in epochs stepped every batch
def train_multistep(model, loader, epochs):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    sched = MultiStepLR(opt, milestones=[100, 150], gamma=0.1)
    for epoch in range(epochs):
        for x, y in loader:
            opt.zero_grad()
            F.cross_entropy(model(x), y).backward()
            opt.step()
            sched.step()  # expect: TPF015


# case: ExponentialLR and ReduceLROnPlateau in the batch loop
def train_decay(model, loader, epochs):
    opt = torch.optim.Adam(model.parameters())
    decay = ExponentialLR(opt, gamma=0.95)
    plateau = ReduceLROnPlateau(opt, patience=5)
    for epoch in range(epochs):
        for x, y in loader:
            opt.zero_grad()
            loss = F.mse_loss(model(x), y)
            loss.backward()
            opt.step()
            decay.step()  # expect: TPF015
            plateau.step(loss.item())  # expect: TPF015
