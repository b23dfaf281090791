# TPF003 stays silent: torch.autograd.grad (guidance) returns gradients
# without adding them into .grad, and the sampler's step() is no
# optimizer's: nothing here trains.
import torch
from torch import nn


class Sampler:
    def __init__(self, steps):
        self.timesteps = list(range(steps, 0, -1))

    def step(self, noise_pred, t, latents):
        return latents - noise_pred / len(self.timesteps)


def guidance(latents, scorer):
    latents = latents.detach().requires_grad_(True)
    score = scorer(latents).sum()
    return torch.autograd.grad(score, latents)[0]


class Pipeline:
    def __init__(self, unet, scorer, scheduler):
        self.unet, self.scorer, self.scheduler = unet, scorer, scheduler

    def __call__(self, n):
        latents = torch.randn(n, 4)
        for t in self.scheduler.timesteps:
            with torch.no_grad():
                noise_pred = self.unet(latents)
            noise_pred = noise_pred - 0.1 * guidance(latents, self.scorer)
            latents = self.scheduler.step(noise_pred, t, latents)
        return latents


if __name__ == "__main__":
    torch.manual_seed(0)
    unet = nn.Sequential(nn.Linear(4, 16), nn.Dropout(0.1), nn.Linear(16, 4))
    scorer = nn.Linear(4, 1)
    unet.eval()
    pipe = Pipeline(unet, scorer, Sampler(20))

    def process_batch(n):
        images = pipe(n)
        print(images)

    for prompt_batch in range(3):
        process_batch(2)
