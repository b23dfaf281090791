# tpf: target=t4
"""LoRA on the Stable Diffusion 1.5 UNet in diffusers' train_text_to_image_lora.py style: every
model frozen and cast to float16, then `unet.add_adapter(LoraConfig(...))` puts rank-4 adapters
on the attention projections (to_q, to_k, to_v, to_out.0). Only the adapters train: 797,184
parameters (the size of diffusers' published SD 1.5 rank-4 LoRA), so gradients and AdamW state
are a few MB while the activations still flow through the frozen UNet."""
import torch
import torch.nn.functional as F
from diffusers import AutoencoderKL, DDPMScheduler, UNet2DConditionModel
from peft import LoraConfig
from transformers import CLIPTextModel

name = "runwayml/stable-diffusion-v1-5"
noise_scheduler = DDPMScheduler.from_pretrained(name, subfolder="scheduler")
text_encoder = CLIPTextModel.from_pretrained(name, subfolder="text_encoder")
vae = AutoencoderKL.from_pretrained(name, subfolder="vae")
unet = UNet2DConditionModel.from_pretrained(name, subfolder="unet")
unet.requires_grad_(False)
vae.requires_grad_(False)
text_encoder.requires_grad_(False)
lora = LoraConfig(r=4, lora_alpha=4, init_lora_weights="gaussian", target_modules=["to_k", "to_q", "to_v", "to_out.0"])
unet.to("cuda", dtype=torch.float16)
vae.to("cuda", dtype=torch.float16)
text_encoder.to("cuda", dtype=torch.float16)
unet.add_adapter(lora)
optimizer = torch.optim.AdamW(filter(lambda p: p.requires_grad, unet.parameters()), lr=1e-4)
scaler = torch.cuda.amp.GradScaler()
for step in range(100):
    pixels = torch.randn(1, 3, 512, 512, device="cuda", dtype=torch.float16)
    ids = torch.randint(0, 49408, (1, 77), device="cuda")
    latents = vae.encode(pixels).latent_dist.sample() * vae.config.scaling_factor
    noise = torch.randn_like(latents)
    t = torch.randint(0, noise_scheduler.config.num_train_timesteps, (1,), device="cuda")
    hidden = text_encoder(ids, return_dict=False)[0]
    with torch.autocast("cuda", dtype=torch.float16):
        pred = unet(noise_scheduler.add_noise(latents, noise, t), t, hidden, return_dict=False)[0]
        loss = F.mse_loss(pred.float(), noise.float())
    scaler.scale(loss).backward()
    scaler.step(optimizer)
    scaler.update()
    optimizer.zero_grad()
