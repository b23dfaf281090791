# TPF008 must stay silent: train mode restored before every training step.
import torch
import torch.nn as nn
import torch.nn.functional as F


# case: train() at the start of every epoch
def fit(model, train_loader, val_loader, optimizer, epochs):
    for epoch in range(epochs):
        model.train()
        for x, y in train_loader:
            optimizer.zero_grad()
            F.cross_entropy(model(x), y).backward()
            optimizer.step()
        model.eval()
        with torch.no_grad():
            for x, y in val_loader:
                model(x)


# case: a validation helper that restores train mode
@torch.no_grad()
def estimate_loss(model, batches):
    model.eval()
    losses = [model(x, y)[1].item() for x, y in batches]
    model.train()
    return sum(losses) / len(losses)


def train_nanogpt_style(model, optimizer, get_batch, max_iters, eval_interval):
    for it in range(max_iters):
        if it % eval_interval == 0:
            print(it, estimate_loss(model, [get_batch("val") for _ in range(10)]))
        x, y = get_batch("train")
        _, loss = model(x, y)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()


# case: the tutorial's phase loop switches modes each phase
def train_phases(model, dataloaders, criterion, optimizer, num_epochs):
    for epoch in range(num_epochs):
        for phase in ["train", "val"]:
            if phase == "train":
                model.train()
            else:
                model.eval()
            for inputs, labels in dataloaders[phase]:
                optimizer.zero_grad()
                with torch.set_grad_enabled(phase == "train"):
                    loss = criterion(model(inputs), labels)
                    if phase == "train":
                        loss.backward()
                        optimizer.step()


# case: eval after the last training step
def train_then_test(model, loader, test_loader, optimizer):
    model.train()
    for x, y in loader:
        optimizer.zero_grad()
        F.cross_entropy(model(x), y).backward()
        optimizer.step()
    model.eval()
    with torch.no_grad():
        return [model(x).argmax(1) for x, _ in test_loader]


# case: frozen batch-norm layers and a teacher in eval mode
def train_frozen_bn(model, teacher, loader, optimizer, epochs):
    teacher.eval()
    for epoch in range(epochs):
        model.train()
        for m in model.modules():
            if isinstance(m, nn.BatchNorm2d):
                m.eval()
        for x, y in loader:
            with torch.no_grad():
                target = teacher(x)
            optimizer.zero_grad()
            F.mse_loss(model(x), target).backward()
            optimizer.step()


# case: an EMA copy evaluated while the online model trains
def train_with_ema(model, ema_model, loader, optimizer):
    model.train()
    for step, (x, y) in enumerate(loader):
        optimizer.zero_grad()
        F.cross_entropy(model(x), y).backward()
        optimizer.step()
        if step % 100 == 0:
            ema_model.eval()
            with torch.no_grad():
                print(F.cross_entropy(ema_model(x), y).item())


# case: transformers-style loop, train() at the top of every epoch
def train_hf(model, train_dataloader, eval_dataloader, optimizer, lr_scheduler, accelerator, epochs):
    for epoch in range(epochs):
        model.train()
        for step, batch in enumerate(train_dataloader):
            outputs = model(**batch)
            accelerator.backward(outputs.loss)
            optimizer.step()
            lr_scheduler.step()
            optimizer.zero_grad()
        model.eval()
        for step, batch in enumerate(eval_dataloader):
            with torch.no_grad():
                outputs = model(**batch)


# case: restoring the previous mode
def evaluate_keep_mode(model, batch):
    was_training = model.training
    model.eval()
    with torch.no_grad():
        out = model(batch)
    model.train(was_training)
    return out


def loop_keep_mode(model, loader, optimizer):
    model.train()
    for i, (x, y) in enumerate(loader):
        if i % 50 == 0:
            evaluate_keep_mode(model, x)
        optimizer.zero_grad()
        F.mse_loss(model(x), y).backward()
        optimizer.step()


# case: a validation helper applied to an EMA copy, not the trained model
def validate_copy(net, loader):
    net.eval()
    with torch.no_grad():
        return sum(F.mse_loss(net(x), y).item() for x, y in loader)


def train_with_ema_validation(model, ema_model, loader, val_loader, optimizer, epochs):
    model.train()
    for epoch in range(epochs):
        for x, y in loader:
            optimizer.zero_grad()
            F.mse_loss(model(x), y).backward()
            optimizer.step()
        print(validate_copy(ema_model, val_loader))
