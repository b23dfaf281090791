# TPF018 silent: a vocoder-style trainer whose parts live in one dict and
# whose mode is set member by member, and whose validation calls helpers
# and losses that are no model. Each of these fired before.
import torch
from torch import nn
from audio_utils import *  # noqa: F403  (align_frames, spectral_distance come from here)


class Bag(dict):
    """Parts by name, also as attributes (as Munch does)."""

    def __getattr__(self, name):
        return self[name]


def build():
    return Bag(
        encoder=nn.Sequential(nn.Conv1d(80, 256, 5, padding=2), nn.BatchNorm1d(256), nn.ReLU()),
        decoder=nn.Sequential(nn.Dropout(0.1), nn.Conv1d(256, 80, 5, padding=2)),
    )


def fit(train_loader, val_loader, epochs, device="cuda"):
    parts = build()
    for name in parts:
        parts[name].to(device)
    opt = torch.optim.AdamW([p for name in parts for p in parts[name].parameters()], lr=2e-4)
    mel_loss = nn.L1Loss()
    for epoch in range(epochs):
        # case: train() over the values of the container
        for net in parts.values():
            net.train()
        for mel, frames in train_loader:
            mel = mel.to(device)
            out = parts.decoder(parts.encoder(mel))
            loss = mel_loss(out, align_frames(mel, frames)) + spectral_distance(out, mel)  # noqa: F405
            opt.zero_grad()
            loss.backward()
            opt.step()
        # case: eval() on every member through a comprehension over the keys
        _ = [parts[name].eval() for name in parts]
        with torch.no_grad():
            for mel, frames in val_loader:
                mel = mel.to(device)
                # case: star-imported helpers and a loss module are no models
                out = parts.decoder(parts.encoder(mel))
                target = align_frames(mel, frames)  # noqa: F405
                print(mel_loss(out, target).item(), spectral_distance(out, mel).item())  # noqa: F405


# case: eval() on the members of a tuple written out
def finetune(encoder, decoder, train_loader, val_loader, opt):
    for mel, _ in train_loader:
        opt.zero_grad()
        nn.functional.l1_loss(decoder(encoder(mel)), mel).backward()
        opt.step()
    for net in (encoder, decoder):
        net.eval()
    with torch.no_grad():
        for mel, _ in val_loader:
            print(nn.functional.l1_loss(decoder(encoder(mel)), mel).item())
