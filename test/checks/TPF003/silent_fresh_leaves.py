# TPF003 backward_without_zero_grad: a sampling loop optimizes a fresh copy
# of the latents each step, with a fresh optimizer; the gradients of one step
# live on tensors the next step no longer uses.
import torch
import torch.nn.functional as F


# case: new leaves and a new optimizer every iteration (guidance by gradient)
@torch.no_grad()
def sample(unet, scheduler, latents, target, lr):
    for t in scheduler.timesteps:
        x_in = latents.detach().clone()
        x_in.requires_grad = True
        opt = torch.optim.SGD([x_in], lr=lr)
        with torch.enable_grad():
            F.mse_loss(unet(x_in, t), target).backward()
            opt.step()
        latents = scheduler.step(unet(x_in.detach(), t), t, x_in.detach())


# case: a noise tensor made in the loop and refined for one step
def refine(model, batches, lr):
    out = []
    for x in batches:
        delta = torch.zeros_like(x, requires_grad=True)
        opt = torch.optim.Adam((delta,), lr=lr)
        F.relu(model(x + delta)).sum().backward()
        opt.step()
        out.append((x + delta).detach())
    return out
