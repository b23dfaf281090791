# TPF004 accumulation_without_loss_scaling: accumulation that sums instead of averaging.
import argparse

import torch
import torch.nn.functional as F
from tqdm import tqdm

torch.manual_seed(0)


# case: the classic `(i + 1) % accum_steps == 0` step with a raw loss
def train_epoch(model, loader, optimizer, criterion, accum_steps, device):
    model.train()
    for i, (images, labels) in enumerate(loader):
        images, labels = images.to(device), labels.to(device)
        loss = criterion(model(images), labels)
        loss.backward()  # expect: TPF004
        if (i + 1) % accum_steps == 0:
            optimizer.step()
            optimizer.zero_grad()


# case: argparse config, tqdm, AMP scaler, a Hugging Face style output object
def finetune(model, train_dataloader, optimizer, scheduler, scaler):
    parser = argparse.ArgumentParser()
    parser.add_argument("--gradient_accumulation_steps", type=int, default=8)
    args = parser.parse_args()
    for step, batch in enumerate(tqdm(train_dataloader)):
        with torch.autocast("cuda", dtype=torch.bfloat16):
            outputs = model(**batch)
        scaler.scale(outputs.loss).backward()  # expect: TPF004
        if step % args.gradient_accumulation_steps == 0:
            scaler.step(optimizer)
            scaler.update()
            scheduler.step()
            optimizer.zero_grad(set_to_none=True)


# case: a counter instead of the loop index, loss from F.cross_entropy
def train_with_counter(net, batches, opt, n_accum=4):
    seen = 0
    for x, y in batches:
        logits = net(x)
        loss = F.cross_entropy(logits, y)
        loss.backward()  # expect: TPF004
        seen += 1
        if seen == n_accum:
            opt.step()
            opt.zero_grad()
            seen = 0


# case: the loss comes from a helper of the file that does not divide
def compute_loss(model, batch):
    inputs, targets = batch
    return F.mse_loss(model(inputs), targets)


def run(model, loader, optimizer, accumulate_every):
    optimizer.zero_grad()
    for it, batch in enumerate(loader):
        loss = compute_loss(model, batch) + 0.01
        loss.backward()  # expect: TPF004
        if it % accumulate_every != 0:
            continue
        optimizer.step()
        optimizer.zero_grad()


# case: a global step counter kept across epochs, zero_grad at the top of the window
def train(model, loader, optimizer, criterion, epochs, accum):
    global_step = 0
    for epoch in range(epochs):
        for x, y in loader:
            if global_step % accum == 0:
                optimizer.zero_grad()
            out = model(x)
            criterion(out, y).backward()  # expect: TPF004
            global_step += 1
            if global_step % accum == 0:
                optimizer.step()
