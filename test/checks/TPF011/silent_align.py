# TPF011 repeated_host_to_device_transfer: `.to(out.device)` aligns a value
# with this iteration's tensor; when it was computed on the GPU before the
# loop that is a no-op, not a copy.
import torch
import torch.nn.functional as F

torch.manual_seed(0)


# case: an empty-prompt embedding swapped in with caption dropout
def train(model, encoder, loader, opt, p_drop):
    with torch.no_grad():
        empty = encoder("")
    for tokens, target in loader:
        emb = encoder(tokens)
        drop = torch.rand(emb.size(0), device=emb.device) < p_drop
        emb[drop] = empty.to(device=emb.device, dtype=emb.dtype)
        opt.zero_grad()
        F.mse_loss(model(emb), target).backward()
        opt.step()


# case: a diffusion sampling loop: `scheduler.step(...)` with arguments is no optimizer step
@torch.no_grad()
def sample(unet, scheduler, latents, cond, device):
    for t in scheduler.timesteps:
        pred = unet(latents, t, cond.to(device))
        latents = scheduler.step(pred, t, latents).prev_sample
    return latents
