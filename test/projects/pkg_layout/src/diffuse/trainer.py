import torch

from .optim_util import zero_grads
from . import optim_util


class Trainer:
    def __init__(self, model, lr):
        self.model = model
        self.params = list(model.parameters())
        self.opt = torch.optim.Adam(self.params, lr=lr)

    def run(self, loader):
        for x in loader:
            loss = (self.model(x) - x).pow(2).mean()
            zero_grads(self.params)
            optim_util.scale_loss(loss, 1.0).backward()
            self.opt.step()
