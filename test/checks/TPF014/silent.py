# TPF014 must stay silent: gradients cleared where they do no harm.
import torch
import torch.nn.functional as F


# case: zero_grad at the top of every iteration
def train(model, loader, optimizer):
    for x, y in loader:
        optimizer.zero_grad(set_to_none=True)
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        optimizer.step()


# case: zero_grad right after the step
def train_after(model, loader, optimizer):
    for x, y in loader:
        F.cross_entropy(model(x), y).backward()
        optimizer.step()
        optimizer.zero_grad()


# case: gradient accumulation, clearing at the top under the same counter
def train_accumulate(model, loader, optimizer, k=4):
    for i, (x, y) in enumerate(loader):
        if i % k == 0:
            optimizer.zero_grad()
        (F.cross_entropy(model(x), y) / k).backward()
        if (i + 1) % k == 0:
            optimizer.step()


# case: a GAN: the generator's clear and backward come after the discriminator's step
def train_gan(netD, netG, loader, optD, optG, noise):
    for real in loader:
        optD.zero_grad()
        errD = F.binary_cross_entropy_with_logits(netD(real), torch.ones(real.size(0)))
        errD.backward()
        optD.step()
        optG.zero_grad()
        errG = F.binary_cross_entropy_with_logits(netD(netG(noise)), torch.ones(real.size(0)))
        errG.backward()
        optG.step()


# case: another optimizer's zero_grad between a backward and a step
def train_two(model_a, model_b, loader, opt_a, opt_b):
    for x, y in loader:
        F.mse_loss(model_a(x), y).backward()
        opt_b.zero_grad()
        opt_a.step()
        F.mse_loss(model_b(x), y).backward()
        opt_b.step()
        opt_a.zero_grad()


# case: gradients computed, cleared, and written back by hand (gradient surgery)
def train_surgery(model, loader, optimizer, project):
    for x, y in loader:
        F.mse_loss(model(x), y).backward()
        grads = [p.grad.clone() for p in model.parameters()]
        optimizer.zero_grad()
        for p, g in zip(model.parameters(), project(grads)):
            p.grad = g
        optimizer.step()


# case: clear, then a second backward before the step
def train_second_loss(model, loader, optimizer, warmup):
    for x, y in loader:
        F.mse_loss(model(x), y).backward()
        if warmup:
            optimizer.zero_grad()
            F.l1_loss(model(x), y).backward()
        optimizer.step()
        optimizer.zero_grad()


# case: model.zero_grad() between backward and step is not followed
def train_model_clear(model, loader, optimizer, freeze):
    for x, y in loader:
        F.mse_loss(model(x), y).backward()
        freeze.zero_grad()
        optimizer.step()
