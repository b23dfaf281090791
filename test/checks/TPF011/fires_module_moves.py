# TPF011 still fires for a tensor kept in a field beside a module: the
# module's move is in place, the tensor's `.to()` makes a new copy from host
# memory every step.
import torch
from torch import nn


# case: a tensor field moved every step next to the module's in-place move
class Fitter:
    def __init__(self, net, prior):
        self.net = net
        self.prior = prior
        self.opt = torch.optim.Adam(net.parameters())

    def run(self, batches, device):
        for x in batches:
            self.net.to(device)
            prior = self.prior.to(device)  # expect: TPF011
            self.opt.zero_grad()
            (self.net(x.to(device)) - prior).square().mean().backward()
            self.opt.step()
