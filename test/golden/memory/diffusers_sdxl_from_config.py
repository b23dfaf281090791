# tpf: target=h100
"""The SDXL base UNet (2,567,463,684 parameters: three levels with 1, 2 and 10 transformer blocks,
2048-wide text, the "text_time" embedding of the pooled text and six size ids) trained with
gradient checkpointing under bf16 autocast, as diffusers' train_text_to_image_sdxl.py does it. The
scheduler comes from `DDPMScheduler.from_config(load_config(...))`: its config is not read, so the
schedule has DDPMScheduler's defaults (1000 training timesteps, epsilon prediction) and the config
object is never taken for a timestep count."""
import torch
import torch.nn.functional as F
from diffusers import DDPMScheduler, UNet2DConditionModel

name = "stabilityai/stable-diffusion-xl-base-1.0"
noise_scheduler = DDPMScheduler.from_config(DDPMScheduler.load_config(name, subfolder="scheduler"))
unet = UNet2DConditionModel.from_pretrained(name, subfolder="unet").cuda()
unet.enable_gradient_checkpointing()
optimizer = torch.optim.AdamW(unet.parameters(), lr=1e-5)
for step in range(100):
    latents = torch.randn(4, 4, 128, 128, device="cuda")
    noise = torch.randn_like(latents)
    t = torch.randint(0, noise_scheduler.config.num_train_timesteps, (4,), device="cuda")
    noisy = noise_scheduler.add_noise(latents, noise, t)
    hidden = torch.randn(4, 77, 2048, device="cuda")
    cond = {"text_embeds": torch.randn(4, 1280, device="cuda"), "time_ids": torch.randn(4, 6, device="cuda")}
    with torch.autocast("cuda", dtype=torch.bfloat16):
        pred = unet(noisy, t, hidden, added_cond_kwargs=cond, return_dict=False)[0]
    F.mse_loss(pred.float(), noise.float()).backward()
    optimizer.step()
    optimizer.zero_grad()
