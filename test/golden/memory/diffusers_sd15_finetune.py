# tpf: target=a100
"""Stable Diffusion 1.5 fine-tuning in diffusers' train_text_to_image.py style: the UNet, the VAE
and the CLIP text encoder come from the hub by name and subfolder (their published configs:
859,520,964 + 83,653,863 + 123,060,480 parameters). The VAE and the text encoder are frozen
(requires_grad_(False)) and cast to float16, so only the UNet gets gradients and AdamW state;
the frozen models' forwards keep nothing for backward."""
import torch
import torch.nn.functional as F
from diffusers import AutoencoderKL, DDPMScheduler, UNet2DConditionModel
from transformers import CLIPTextModel

name = "stable-diffusion-v1-5/stable-diffusion-v1-5"
unet = UNet2DConditionModel.from_pretrained(name, subfolder="unet").cuda()
vae = AutoencoderKL.from_pretrained(name, subfolder="vae")
text_encoder = CLIPTextModel.from_pretrained(name, subfolder="text_encoder")
vae.requires_grad_(False)
text_encoder.requires_grad_(False)
vae.to("cuda", dtype=torch.float16)
text_encoder.to("cuda", dtype=torch.float16)
noise_scheduler = DDPMScheduler.from_pretrained(name, subfolder="scheduler")
optimizer = torch.optim.AdamW(unet.parameters(), lr=1e-5)
for step in range(100):
    pixels = torch.randn(2, 3, 512, 512, device="cuda", dtype=torch.float16)
    ids = torch.randint(0, 49408, (2, 77), device="cuda")
    latents = vae.encode(pixels).latent_dist.sample() * vae.config.scaling_factor
    noise = torch.randn_like(latents)
    t = torch.randint(0, noise_scheduler.config.num_train_timesteps, (latents.shape[0],), device="cuda")
    noisy = noise_scheduler.add_noise(latents, noise, t)
    hidden = text_encoder(ids, return_dict=False)[0]
    if noise_scheduler.config.prediction_type == "epsilon":
        target = noise
    else:
        target = noise_scheduler.get_velocity(latents, noise, t)
    pred = unet(noisy.float(), t, hidden.float()).sample
    F.mse_loss(pred, target.float()).backward()
    optimizer.step()
    optimizer.zero_grad()
