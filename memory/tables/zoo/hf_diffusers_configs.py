"""Published configs of diffusers checkpoints, for `<Class>.from_pretrained(
repo, subfolder=...)`: the rows are keyed "<repo>/<subfolder>" (the repo
alone for a model at its root) and hold the values of the checkpoint's
config.json on the Hugging Face Hub (https://huggingface.co/<repo>/blob/main/
<subfolder>/config.json) that differ from the class's defaults in diffusers
0.40.0.dev0 (commit 58eb52c; the model code is hf_diffusers.py,
hf_diffusers_sd.py and hf_diffusers_vae.py). Fields that change no module
and no tensor shape (upcast_attention under SDPA, force_upcast, ...) are
left out, except the few a script reads from `.config` (sample_size,
scaling_factor). The parameter counts are pinned in
test/memory/hf_zoo_test.cpp against the published ones: SD 1.5 UNet
859,520,964, VAE 83,653,863; SD 2.1 UNet 865,910,724; SDXL UNet
2,567,463,684, VAE 83,653,863.
This file is interpreted by tpf-analyze, never imported by it.
"""
from tpf_zoo.hf_diffusers import UNet2DModel
from tpf_zoo.hf_diffusers_sd import UNet2DConditionModel
from tpf_zoo.hf_diffusers_vae import AutoencoderKL

ENCODER_BLOCKS = ("DownEncoderBlock2D", "DownEncoderBlock2D", "DownEncoderBlock2D", "DownEncoderBlock2D")
DECODER_BLOCKS = ("UpDecoderBlock2D", "UpDecoderBlock2D", "UpDecoderBlock2D", "UpDecoderBlock2D")


def sd_vae(sample_size, scaling_factor):
    """The KL autoencoder all of SD 1.x, 2.x and SDXL use (SDXL's has other
    weights, the same architecture)."""
    return {"block_out_channels": (128, 256, 512, 512), "down_block_types": ENCODER_BLOCKS,
            "up_block_types": DECODER_BLOCKS, "layers_per_block": 2, "latent_channels": 4,
            "sample_size": sample_size, "scaling_factor": scaling_factor}


# SD 1.x: UNet2DConditionModel's defaults but the 768-wide CLIP ViT-L/14 text.
SD1_UNET = {"sample_size": 64, "cross_attention_dim": 768, "attention_head_dim": 8}

# SD 2.x: OpenCLIP ViT-H's 1024-wide text, heads of 64 channels, linear
# projections in the transformers.
def sd2_unet(sample_size):
    return {"sample_size": sample_size, "cross_attention_dim": 1024, "attention_head_dim": (5, 10, 20, 20),
            "use_linear_projection": True}

# SDXL base 1.0: three levels, 1, 2 and 10 transformer blocks, the two text
# encoders' 768 + 1280 = 2048-wide text, and the "text_time" embedding of the
# pooled text (1280) and six size/crop ids (6 * 256): 2816 inputs.
SDXL_UNET = {"sample_size": 128, "block_out_channels": (320, 640, 1280),
             "down_block_types": ("DownBlock2D", "CrossAttnDownBlock2D", "CrossAttnDownBlock2D"),
             "up_block_types": ("CrossAttnUpBlock2D", "CrossAttnUpBlock2D", "UpBlock2D"),
             "attention_head_dim": (5, 10, 20), "transformer_layers_per_block": (1, 2, 10),
             "cross_attention_dim": 2048, "use_linear_projection": True, "addition_embed_type": "text_time",
             "addition_time_embed_dim": 256, "projection_class_embeddings_input_dim": 2816}

# google/ddpm-cifar10-32 (its root config.json): the DDPM paper's CIFAR-10 UNet.
DDPM_CIFAR10 = {"sample_size": 32, "block_out_channels": (128, 256, 256, 256),
                "down_block_types": ("DownBlock2D", "AttnDownBlock2D", "DownBlock2D", "DownBlock2D"),
                "up_block_types": ("UpBlock2D", "UpBlock2D", "AttnUpBlock2D", "UpBlock2D"),
                "attention_head_dim": None, "norm_eps": 1e-6, "downsample_padding": 0, "flip_sin_to_cos": False,
                "freq_shift": 1}

CONFIGS = {
    "runwayml/stable-diffusion-v1-5/unet": ("UNet2DConditionModel", SD1_UNET),
    "runwayml/stable-diffusion-v1-5/vae": ("AutoencoderKL", sd_vae(512, 0.18215)),
    "stable-diffusion-v1-5/stable-diffusion-v1-5/unet": ("UNet2DConditionModel", SD1_UNET),
    "stable-diffusion-v1-5/stable-diffusion-v1-5/vae": ("AutoencoderKL", sd_vae(512, 0.18215)),
    "CompVis/stable-diffusion-v1-4/unet": ("UNet2DConditionModel", SD1_UNET),
    "CompVis/stable-diffusion-v1-4/vae": ("AutoencoderKL", sd_vae(512, 0.18215)),
    "stabilityai/stable-diffusion-2-1/unet": ("UNet2DConditionModel", sd2_unet(96)),
    "stabilityai/stable-diffusion-2-1/vae": ("AutoencoderKL", sd_vae(768, 0.18215)),
    "stabilityai/stable-diffusion-2-1-base/unet": ("UNet2DConditionModel", sd2_unet(64)),
    "stabilityai/stable-diffusion-2-1-base/vae": ("AutoencoderKL", sd_vae(512, 0.18215)),
    "stabilityai/stable-diffusion-xl-base-1.0/unet": ("UNet2DConditionModel", SDXL_UNET),
    "stabilityai/stable-diffusion-xl-base-1.0/vae": ("AutoencoderKL", sd_vae(1024, 0.13025)),
    "google/ddpm-cifar10-32": ("UNet2DModel", DDPM_CIFAR10),
}

CLASSES = {"UNet2DConditionModel": UNet2DConditionModel, "AutoencoderKL": AutoencoderKL, "UNet2DModel": UNet2DModel}


def row_class(key):
    """The class name of the row `key`, or None when there is no row."""
    if key not in CONFIGS:
        return None
    return CONFIGS[key][0]


def build(key):
    """The model of the row `key` (memory/tables/zoo_diffusers.cpp checks the
    row's class against the one the script names first)."""
    cls, config = CONFIGS[key]
    return CLASSES[cls](**config)
