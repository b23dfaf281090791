# TPF008 stays silent on zeroth-order training (MeZO): each step perturbs
# the parameters by hand and runs the perturbed forwards in eval mode on
# purpose (both must see the same network, no dropout noise), in a loop
# over perturbations inside the step's loop. fires_flag_and_zeroth_order.py
# holds the forms that still fire.
import torch
from torch import nn


class ZOTrainer:
    def __init__(self, model, eps=1e-3):
        self.model = model
        self.eps = eps
        self.optimizer = torch.optim.SGD(model.parameters(), lr=1e-4)

    def perturb(self, seed, scale):
        torch.manual_seed(seed)
        for p in self.model.parameters():
            z = torch.normal(mean=0, std=1, size=p.data.size())
            p.data = p.data + scale * z * self.eps

    def zo_forward(self, x, y):
        self.model.eval()
        return nn.functional.cross_entropy(self.model(x), y).item()

    def fit(self, batches, val_batches, epochs, num_zs=2):
        for epoch in range(epochs):
            for x, y in batches:
                grads = 0.0
                for k in range(num_zs):
                    self.perturb(k, 1)
                    up = self.zo_forward(x, y)
                    self.perturb(k, -2)
                    down = self.zo_forward(x, y)
                    self.perturb(k, 1)
                    grads += (up - down) / (2 * self.eps)
                for p in self.model.parameters():
                    p.grad = torch.full_like(p, grads / num_zs)
                self.optimizer.step()


def main(batches, val_batches):
    net = nn.Sequential(nn.Linear(8, 32), nn.Dropout(0.1), nn.Linear(32, 4))
    ZOTrainer(net).fit(batches, val_batches, 3)
