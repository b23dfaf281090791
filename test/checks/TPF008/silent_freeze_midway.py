# TPF008 stays silent when the evaluated model is frozen together with its
# mode: at a chosen step the text encoder stops training
# (`requires_grad_(False)` next to `train(False)`, in either order), so
# the optimizer no longer updates it and its eval mode is intended. The
# models and the optimizer come from a library, so neither what the
# models hold nor what the optimizer steps is known.
import torch
from torch import nn
from training_utils import load_models, make_optimizer


def finetune(unet, text_encoder, loader, stop_encoder_at, freeze_first):
    params = list(unet.parameters()) + list(text_encoder.parameters())
    opt = make_optimizer(params, lr=1e-5)
    unet.train()
    text_encoder.train()
    for step, (ids, target) in enumerate(loader):
        if step == stop_encoder_at:
            if freeze_first:
                text_encoder.requires_grad_(False)
                text_encoder.train(False)
            else:
                text_encoder.train(False)
                text_encoder.requires_grad_(False)
        loss = nn.functional.mse_loss(unet(text_encoder(ids)), target)
        loss.backward()
        opt.step()
        opt.zero_grad()


def main(loader):
    unet, encoder = load_models("sd-v1-5")
    finetune(unet, encoder, loader, 500, True)
