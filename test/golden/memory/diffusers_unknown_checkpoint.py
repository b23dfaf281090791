# tpf: target=a100
"""Pretrained diffusers models the estimator cannot build: a fine-tuned UNet by a hub name outside
the built-in config table, a VAE whose subfolder comes from a file the interpreter does not read,
and a VAE asked of the repo's UNet subfolder. Each is a blocking unknown that names the checkpoint
and why; the estimate is unknown."""
import json

import torch
from diffusers import AutoencoderKL, UNet2DConditionModel

unet = UNet2DConditionModel.from_pretrained("my-org/sd15-finetuned", subfolder="unet").cuda()
parts = json.load(open("parts.json"))
vae = AutoencoderKL.from_pretrained("runwayml/stable-diffusion-v1-5", subfolder=parts["vae"]).cuda()
vae2 = AutoencoderKL.from_pretrained("runwayml/stable-diffusion-v1-5", subfolder="unet")
optimizer = torch.optim.AdamW(unet.parameters(), lr=1e-5)
