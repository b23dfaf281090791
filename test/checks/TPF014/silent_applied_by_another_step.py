# TPF014 must stay silent: the backward's gradients were applied by a step
# (of any optimizer) before the clear, so the clear wastes nothing.
import torch
import torch.nn as nn


# case: a second model's loop after the reference model's; its clear follows ref_opt.step()
def compare_with_reference(ref, model, batches):
    ref_opt = torch.optim.SGD(ref.parameters(), lr=0.1)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for micro in batches:
        ref_opt.zero_grad()
        for x in micro:
            ref(x).square().mean().backward()
        ref_opt.step()
    for micro in batches:
        opt.zero_grad()
        for x in micro:
            model(x).square().mean().backward()
        opt.step()


# case: a GAN step: D's clear after G's step, D's backward only for some losses
def gan_step(G, D, g_opt, d_opt, z, real, gan_type):
    g_opt.zero_grad()
    fake = G(z)
    D(fake).mean().neg().backward()
    g_opt.step()
    d_opt.zero_grad()
    if gan_type == "gan":
        (D(fake.detach()).mean() - D(real).mean()).backward()
    d_opt.step()


# case: the same GAN step every batch of a loop
def train_gan(G, D, loader):
    g_opt = torch.optim.Adam(G.parameters())
    d_opt = torch.optim.Adam(D.parameters())
    for z, real in loader:
        g_opt.zero_grad()
        fake = G(z)
        D(fake).mean().neg().backward()
        g_opt.step()
        d_opt.zero_grad()
        for r in real:
            (D(fake.detach()).mean() - D(r).mean()).backward()
        d_opt.step()


# case: a scaler step applies the first loss before another optimizer's clear
def train_scaled(model, head, loader):
    scaler = torch.cuda.amp.GradScaler()
    opt = torch.optim.AdamW(model.parameters())
    head_opt = torch.optim.AdamW(head.parameters())
    for x in loader:
        opt.zero_grad()
        scaler.scale(model(x).mean()).backward()
        scaler.step(opt)
        scaler.update()
        head_opt.zero_grad()
        for part in x:
            head(part).mean().backward()
        head_opt.step()
