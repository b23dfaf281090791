# TPF014 zero_grad_before_step: where the autofix moves the clear before the
# backward, and where it leaves the code alone.
import torch
import torch.nn.functional as F

torch.manual_seed(0)


# case: the clear moves before the backward with its comment
def step_once(model, x, y, optimizer):
    loss = F.cross_entropy(model(x), y)
    loss.backward()
    optimizer.zero_grad()  # reset  # expect: TPF014
    optimizer.step()


# case: two losses, two backward calls: not moved (the first one's gradients would be lost)
def two_losses(model, loader, opt):
    for x, y in loader:
        out = model(x)
        F.cross_entropy(out, y).backward(retain_graph=True)
        (out.pow(2).mean() * 0.1).backward()
        opt.zero_grad()  # expect: TPF014
        opt.step()


# case: the step under an accumulation guard: not moved (clearing each micro-step ends accumulation)
def accumulate(model, loader, opt):
    for i, (x, y) in enumerate(loader):
        (F.cross_entropy(model(x), y) / 4).backward()
        opt.zero_grad()  # expect: TPF014
        if (i + 1) % 4 == 0:
            opt.step()


# case: a skip between the clear and the step: not moved (the skipped step's gradients would carry over)
def skip_non_finite(model, loader, opt):
    for x, y in loader:
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        opt.zero_grad()  # expect: TPF014
        if not torch.isfinite(loss):
            continue
        opt.step()


# case: the clear shares its line with the backward: not moved
def one_line(model, loader, opt):
    for x, y in loader:
        loss = F.cross_entropy(model(x), y)
        loss.backward(); opt.zero_grad()  # expect: TPF014
        opt.step()
