# TPF002 inference_without_no_grad: hand-pulled batches and helpers that
# are fine: under no_grad, a helper that keeps the outputs for a later
# backward, indices from range without a loader, a template method two
# subclasses define differently (which one runs is not known).
import torch
import torch.nn.functional as F

KEPT = []


class Trainer:
    def __init__(self, model, val_data_loader):
        self.model = model
        self.val_data_loader = val_data_loader

    def train(self, epochs):
        for epoch in range(epochs):
            print(self._valid_epoch())


class A(Trainer):
    # case: one of two definitions of the template method: not resolved, not judged
    def _valid_epoch(self):
        self.model.eval()
        it = self.val_data_loader.__iter__()
        return sum(self.model(it.next()).sum().item() for _ in range(3))


class B(Trainer):
    def _valid_epoch(self):
        return 0


# case: pulled batches under no_grad
@torch.no_grad()
def evaluate(model, val_loader, steps):
    model.eval()
    it = iter(val_loader)
    total = 0.0
    for step in range(steps):
        x, y = next(it)
        total += F.cross_entropy(model(x), y).item()
    return total


# case: a helper that stores the outputs (a later backward may use them)
def keep(out):
    KEPT.append(out)


def collect(model, val_loader):
    model.eval()
    for x, y in val_loader:
        keep(model(x.cuda()))


# case: indices from range and no loader: generation of samples, not batches
def sample(model, n):
    model.eval()
    outs = 0.0
    for i in range(n):
        z = torch.randn(1, 4)
        outs += model(z).sum().item()
    return outs


if __name__ == "__main__":
    torch.manual_seed(0)
    net = torch.nn.Linear(4, 2)
    print(evaluate(net, [], 10), collect(net, []), sample(net, 3))
    A(net, []).train(1)
    B(net, []).train(1)
