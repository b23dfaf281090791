# TPF007 must stay silent: activations that match their loss.
import torch
import torch.nn as nn
import torch.nn.functional as F


# case: sigmoid then BCELoss
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(10, 1)

    def forward(self, x):
        return torch.sigmoid(self.fc(x))


def bce_on_probs(x, y):
    return nn.BCELoss()(Net()(x).squeeze(1), y)


# case: logits into BCEWithLogitsLoss, sigmoid only for metrics
def with_logits(model, x, y):
    logits = model(x)
    loss = F.binary_cross_entropy_with_logits(logits, y)
    preds = (torch.sigmoid(logits) > 0.5).float()
    return loss, (preds == y).float().mean()


# case: sigmoid only in eval mode
class MaybeSigmoid(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(10, 1)

    def forward(self, x):
        out = self.fc(x)
        if not self.training:
            out = torch.sigmoid(out)
        return out


def maybe_sigmoid_loss(x, y):
    return nn.BCEWithLogitsLoss()(MaybeSigmoid()(x), y)


# case: inputs of unknown origin
def loss_from_params(outputs, targets):
    return F.binary_cross_entropy(outputs, targets) + F.binary_cross_entropy_with_logits(outputs, targets)


# case: clamped probabilities
def clamped(model, x, y):
    p = torch.sigmoid(model(x))
    return F.binary_cross_entropy(torch.clamp(p, 1e-6, 1 - 1e-6), y)


# case: nn.Sequential ending in nn.Sigmoid with BCELoss
def sequential_probs(x, y):
    head = nn.Sequential(nn.Linear(16, 1), nn.Sigmoid())
    return nn.BCELoss(reduction="sum")(head(x), y)


# case: GAN discriminator with logits and BCEWithLogitsLoss
class Disc(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(784, 256), nn.LeakyReLU(0.2), nn.Linear(256, 1))

    def forward(self, x):
        return self.net(x)


def gan_d_loss(disc, real, fake):
    criterion = nn.BCEWithLogitsLoss()
    d_real = Disc()(real)
    return criterion(d_real, torch.ones_like(d_real)) + criterion(Disc()(fake), torch.zeros_like(d_real))
