# tpf: target=a100
"""Stable Diffusion fine-tuning in diffusers' style: the UNet and the VAE come from the hub with
from_pretrained. Their configs are not in the built-in zoo, so the estimate is unknown and says
which call it could not read (the CLIP text encoder is in the table)."""
import torch
import torch.nn.functional as F
from diffusers import AutoencoderKL, DDPMScheduler, UNet2DConditionModel
from transformers import CLIPTextModel

name = "stable-diffusion-v1-5/stable-diffusion-v1-5"
unet = UNet2DConditionModel.from_pretrained(name, subfolder="unet").cuda()
vae = AutoencoderKL.from_pretrained(name, subfolder="vae").cuda()
text_encoder = CLIPTextModel.from_pretrained(name, subfolder="text_encoder").cuda()
vae.requires_grad_(False)
text_encoder.requires_grad_(False)
noise_scheduler = DDPMScheduler.from_pretrained(name, subfolder="scheduler")
optimizer = torch.optim.AdamW(unet.parameters(), lr=1e-5)
for pixels, ids in []:
    latents = vae.encode(pixels.cuda()).latent_dist.sample() * 0.18215
    noise = torch.randn_like(latents)
    t = torch.randint(0, noise_scheduler.config.num_train_timesteps, (latents.shape[0],), device="cuda")
    pred = unet(noise_scheduler.add_noise(latents, noise, t), t, text_encoder(ids.cuda())[0]).sample
    F.mse_loss(pred, noise).backward()
    optimizer.step()
    optimizer.zero_grad()
