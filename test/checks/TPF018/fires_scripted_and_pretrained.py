# TPF018 still fires when the scripted model has a mode-dependent layer (a
# GRU with dropout between its layers), and when the loaded UNet is put in
# train mode before its fine-tuning and sampled without eval().
import torch
from torch import nn
from diffusers import UNet2DModel


class Vocoder(nn.Module):
    def __init__(self, mels, hidden, classes):
        super().__init__()
        self.embed = nn.Embedding(classes, 32)
        self.rnn = nn.GRU(mels + 32, hidden, num_layers=2, batch_first=True, dropout=0.1)
        self.out = nn.Sequential(nn.Linear(hidden, hidden), nn.ReLU(), nn.Linear(hidden, classes))

    def forward(self, prev, mel):
        h, _ = self.rnn(torch.cat([self.embed(prev), mel], -1))
        return self.out(h)


def train_vocoder(pairs, held_out, steps):
    voc = torch.jit.script(Vocoder(80, 256, 256))
    opt = torch.optim.Adam(voc.parameters(), lr=4e-4)
    for _ in range(steps):
        for prev, mel, target in pairs:
            loss = nn.functional.cross_entropy(voc(prev, mel).transpose(1, 2), target)
            opt.zero_grad()
            loss.backward()
            opt.step()
        with torch.no_grad():
            for prev, mel, target in held_out:
                print(float(nn.functional.cross_entropy(voc(prev, mel).transpose(1, 2), target)))  # expect: TPF018


def tune_unet(images, probes, epochs):
    unet = UNet2DModel.from_pretrained("some/ddpm-checkpoint").to("cuda")
    opt = torch.optim.AdamW(unet.parameters(), lr=1e-5)
    unet.train()
    for _ in range(epochs):
        for x, t, noise in images:
            loss = nn.functional.mse_loss(unet(x + noise, t).sample, noise)
            loss.backward()
            opt.step()
            opt.zero_grad()
        with torch.no_grad():
            for x, t in probes:
                print(float(unet(x, t).sample.std()))  # expect: TPF018
