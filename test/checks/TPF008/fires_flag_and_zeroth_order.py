# TPF008 fires where the exemptions of silent_helper_steps.py and
# silent_zeroth_order.py do not hold: the shared loop helper called with
# its step flag True (handed on to the inner helper) after an evaluation in
# eval mode, and a validation pass at the end of the epoch of a
# zeroth-order trainer (it perturbs nothing and runs after the step).
import torch
from torch import nn


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

    def validate_then_train(self, val_batches, batches):
        self.model.eval()  # expect: TPF008
        with torch.no_grad():
            print(self.run(val_batches, training=False))
        self.run(batches, training=True)


class ZOTrainer:
    def __init__(self, model, eps=1e-3):
        self.model = model
        self.eps = eps
        self.optimizer = torch.optim.SGD(model.parameters(), lr=1e-4)

    def perturb(self, seed, scale):
        torch.manual_seed(seed)
        for p in self.model.parameters():
            p.data = p.data + scale * torch.randn_like(p) * self.eps

    def zo_forward(self, x, y):
        self.model.eval()
        return nn.functional.cross_entropy(self.model(x), y).item()

    def fit(self, batches, val_batches, epochs):
        for epoch in range(epochs):
            for x, y in batches:
                self.perturb(0, 1)
                up = self.zo_forward(x, y)
                self.perturb(0, -2)
                down = self.zo_forward(x, y)
                self.perturb(0, 1)
                for p in self.model.parameters():
                    p.grad = torch.full_like(p, (up - down) / (2 * self.eps))
                self.optimizer.step()
            self.model.eval()  # expect: TPF008
            with torch.no_grad():
                print(sum(self.model(x).sum().item() for x, _ in val_batches))


def main(batches, val_batches):
    net = nn.Sequential(nn.Linear(8, 32), nn.Dropout(0.1), nn.Linear(32, 4))
    Runner(net, torch.optim.SGD(net.parameters(), lr=0.1)).validate_then_train(val_batches, batches)
    ZOTrainer(net).fit(batches, val_batches, 3)
