# TPF008 asks what a helper's "step" is before calling it a training step,
# and whose model a helper puts in eval mode. Silent: a sampler or game
# loop whose only `step(...)` calls take positional arguments on objects
# that are no optimizer (`scheduler.step(noise, t, latents)`,
# `env.step(action)`); a helper that evaluates a model it builds itself
# from a class handed in; a shared loop helper whose optimizer step is
# under a flag the evaluation call passes as False (also when the flag is
# handed on to an inner helper). fires_flag_and_zeroth_order.py holds the
# forms that still fire.
import torch
from torch import nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(4, 16), nn.Dropout(0.2), nn.Linear(16, 2))

    def forward(self, x):
        return self.body(x)


def denoise(unet, sampler, latents, steps):
    for t in range(steps):
        noise = unet(latents, t)
        latents = sampler.step(noise, t, latents)
    return latents


def generate(unet, sampler, text_encoder, prompts):
    text_encoder.eval()
    out = []
    for p in prompts:
        out.append(denoise(unet, sampler, text_encoder(p), 50))
        out.append(denoise(unet, sampler, text_encoder(p), 20))
    return out


def rollout_score(Model, game, episodes):
    policy = Model().to("cpu")
    policy.eval()
    total = 0.0
    for _ in range(episodes):
        obs, done = game.reset(), False
        while not done:
            obs, reward, done = game.step(policy(obs).argmax().item())
            total += reward
    return total


def distill(game, batches):
    student = Net()
    opt = torch.optim.Adam(student.parameters())
    print(rollout_score(Net, game, 3))
    for x, y in batches:
        opt.zero_grad()
        nn.functional.cross_entropy(student(x), y).backward()
        opt.step()


class Runner:
    def __init__(self, model, optimizer):
        self.model = model
        self.optimizer = optimizer

    def _step(self, x, y, training=False):
        loss = nn.functional.cross_entropy(self.model(x), y)
        if training:
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()
        return loss.item()

    def run(self, batches, training=False):
        return sum(self._step(x, y, training=training) for x, y in batches)

    def train(self, batches):
        self.model.train()
        return self.run(batches, training=True)

    def validate(self, batches):
        self.model.eval()
        with torch.no_grad():
            return self.run(batches, training=False)


def main(train_batches, val_batches):
    model = Net()
    runner = Runner(model, torch.optim.SGD(model.parameters(), lr=0.1))
    for epoch in range(10):
        runner.train(train_batches)
        runner.validate(val_batches)
