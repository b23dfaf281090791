# tpf: target=a100
"""A DDPM on CIFAR-10 in diffusers' style (examples/unconditional_image_generation): a UNet2DModel
built from its arguments, a DDPMScheduler that noises each batch, an MSE loss on the predicted
noise. The UNet is google/ddpm-cifar10-32's: 35,746,307 parameters, diffusers' own count (and this
zoo model's under torch 1.13). At batch 8 the zoo model saves 384,784,656 bytes for backward under
torch 1.13 with eager attention (saved_tensors_hooks), the estimator 378,624,868 with SDPA (-1.6%)."""
import torch
import torch.nn.functional as F
from diffusers import DDPMScheduler, UNet2DModel
from diffusers.optimization import get_cosine_schedule_with_warmup
from torch.utils.data import DataLoader
from torchvision import datasets, transforms


def build():
    return UNet2DModel(
        sample_size=32,
        in_channels=3,
        out_channels=3,
        layers_per_block=2,
        block_out_channels=(128, 256, 256, 256),
        down_block_types=("DownBlock2D", "AttnDownBlock2D", "DownBlock2D", "DownBlock2D"),
        up_block_types=("UpBlock2D", "UpBlock2D", "AttnUpBlock2D", "UpBlock2D"),
        attention_head_dim=None,
        norm_eps=1e-6,
        downsample_padding=0,
        flip_sin_to_cos=False,
        freq_shift=1,
    )


def main():
    model = build().to("cuda")
    scheduler = DDPMScheduler(num_train_timesteps=1000, beta_schedule="linear")
    augment = transforms.Compose([transforms.RandomCrop(32, padding=4), transforms.ToTensor(),
                                  transforms.Normalize([0.5], [0.5])])
    train = DataLoader(datasets.CIFAR10("data", train=True, transform=augment, download=True),
                       batch_size=128, shuffle=True, num_workers=8, pin_memory=True, drop_last=True)
    optimizer = torch.optim.AdamW(model.parameters(), lr=2e-4, weight_decay=0.0)
    lr_schedule = get_cosine_schedule_with_warmup(optimizer, 500, 100 * len(train))
    for epoch in range(100):
        for images, _ in train:
            images = images.to("cuda")
            noise = torch.randn_like(images)
            steps = torch.randint(0, scheduler.config.num_train_timesteps, (images.shape[0],), device="cuda")
            noisy = scheduler.add_noise(images, noise, steps)
            loss = F.mse_loss(model(noisy, steps, return_dict=False)[0], noise)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
            lr_schedule.step()
            optimizer.zero_grad()


if __name__ == "__main__":
    main()
