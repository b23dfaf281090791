# TPF004 accumulation_without_loss_scaling: correct accumulation, and loops that are no accumulation.
import torch
import torch.nn.functional as F
from accelerate import Accelerator


# case: the loss divided by the accumulation count before backward
def train_epoch(model, loader, optimizer, criterion, accum_steps):
    for i, (x, y) in enumerate(loader):
        loss = criterion(model(x), y) / accum_steps
        loss.backward()
        if (i + 1) % accum_steps == 0:
            optimizer.step()
            optimizer.zero_grad()


# case: divided inline, through the AMP scaler
def train_amp(model, loader, optimizer, scaler, grad_accum):
    for step, batch in enumerate(loader):
        with torch.autocast("cuda"):
            loss = model(**batch).loss
        scaler.scale(loss / grad_accum).backward()
        if (step + 1) % grad_accum == 0:
            scaler.step(optimizer)
            scaler.update()
            optimizer.zero_grad(set_to_none=True)


# case: multiplied by the inverse, in a helper
def scaled_loss(model, batch, inv_accum):
    x, y = batch
    return F.cross_entropy(model(x), y) * inv_accum


def train_helper(model, loader, optimizer, accum):
    for i, batch in enumerate(loader):
        scaled_loss(model, batch, 1.0 / accum).backward()
        if i % accum == 0:
            optimizer.step()
            optimizer.zero_grad()


# case: reduction="sum" normalized by the tokens of the whole window
def train_tokens(model, loader, optimizer, accum, tokens_per_window):
    for i, (x, y) in enumerate(loader):
        logits = model(x)
        loss = F.cross_entropy(logits.view(-1, logits.size(-1)), y.view(-1), reduction="sum")
        (loss / tokens_per_window).backward()
        if (i + 1) % accum == 0:
            optimizer.step()
            optimizer.zero_grad()


# case: zero_grad every iteration: the step is only logged less often, nothing accumulates
def train_plain(model, loader, optimizer, criterion, log_every):
    for i, (x, y) in enumerate(loader):
        optimizer.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        if i % log_every == 0:
            print(f"step {i}: {loss.item():.4f}")
        optimizer.step()


# case: Accelerate scales the loss itself inside `accumulate`
def train_accelerate(model, optimizer, dataloader):
    accelerator = Accelerator(gradient_accumulation_steps=4)
    model, optimizer, dataloader = accelerator.prepare(model, optimizer, dataloader)
    for batch in dataloader:
        with accelerator.accumulate(model):
            loss = model(**batch).loss
            accelerator.backward(loss)
            optimizer.step()
            optimizer.zero_grad()


# case: the gradients are divided by hand before the step
def train_grad_average(model, loader, optimizer, criterion, accum):
    for i, (x, y) in enumerate(loader):
        criterion(model(x), y).backward()
        if (i + 1) % accum == 0:
            for p in model.parameters():
                if p.grad is not None:
                    p.grad /= accum
            optimizer.step()
            optimizer.zero_grad()


# case: a GAN alternating its two optimizers; each backward is under the same guard as its step
def train_gan(gen, disc, loader, opt_g, opt_d, bce):
    for i, (real, _) in enumerate(loader):
        fake = gen(torch.randn(real.size(0), 100))
        if i % 2 == 0:
            opt_d.zero_grad()
            d_loss = bce(disc(real), torch.ones(real.size(0))) + bce(disc(fake.detach()), torch.zeros(real.size(0)))
            d_loss.backward()
            opt_d.step()
        else:
            opt_g.zero_grad()
            g_loss = bce(disc(fake), torch.ones(real.size(0)))
            g_loss.backward()
            opt_g.step()


# case: a loss from a method we cannot see into (it may divide)
class Trainer:
    def fit(self, loader, accum):
        for i, batch in enumerate(loader):
            loss = self.compute_loss(batch)
            loss.backward()
            if (i + 1) % accum == 0:
                self.optimizer.step()
                self.optimizer.zero_grad()


# case: a loss module of the file that already divides by the accumulation count
class ScaledCrossEntropy(torch.nn.Module):
    def __init__(self, accum):
        super().__init__()
        self.accum = accum

    def forward(self, logits, target):
        return F.cross_entropy(logits, target) / self.accum


def train_module_loss(model, loader, optimizer, accum):
    criterion = ScaledCrossEntropy(accum)
    for i, (x, y) in enumerate(loader):
        criterion(model(x), y).backward()
        if (i + 1) % accum == 0:
            optimizer.step()
            optimizer.zero_grad()
