# TPF002 inference_without_no_grad: batches pulled by hand from a loader's
# iterator (`it.next()` in a `for i in range(n)` loop), a model kept on
# `self`, a validation method only a subclass defines, and outputs handed
# to pure helpers: still an inference loop with autograd recording.
import torch
import torch.nn.functional as F


class Trainer:
    def __init__(self, model, loader, val_data_loader, optimizer):
        self.model = model
        self.loader = loader
        self.val_data_loader = val_data_loader
        self.optimizer = optimizer

    def train(self, epochs):
        for epoch in range(epochs):
            self._train_epoch()
            print(self._valid_epoch())

    def _train_epoch(self):
        self.model.train()
        for x, y in self.loader:
            self.optimizer.zero_grad()
            F.cross_entropy(self.model(x), y).backward()
            self.optimizer.step()


def nearest(a, b):
    dists = []
    for row in a:
        dists.append(((row - b) ** 2).sum(-1).argmin())
    return torch.stack(dists)


class MatchTrainer(Trainer):
    # case: template method: Trainer.train calls it; batches come from `__iter__()` / `.next()`
    def _valid_epoch(self):
        self.model.eval()
        it = self.val_data_loader.__iter__()
        hits = 0
        for i in range(len(self.val_data_loader)):
            batch = it.next()
            f0 = self.model(batch["x0"].cuda())  # expect: TPF002
            f1 = self.model(batch["x1"].cuda())
            hits += (nearest(f0, f1) == batch["match"].cuda()).sum().item()
        return hits


# case: `next(it)` on `iter(loader)` inside a step loop of a plain function
def evaluate(model, val_loader, steps):
    model.eval()
    it = iter(val_loader)
    total = 0.0
    for step in range(steps):
        x, y = next(it)
        total += F.cross_entropy(model(x), y).item()  # expect: TPF002
    return total


# case: the outputs go through a helper of the file that only computes with them
def score(logits, y):
    return (logits.argmax(-1) == y).float().mean().item()


def validate(model, val_loader):
    model.eval()
    acc = 0.0
    for x, y in val_loader:
        out = model(x.cuda())  # expect: TPF002
        acc += score(out, y.cuda())
    return acc


# case: the model is an attribute of a state object the function evaluates
def check(state, val_loader):
    state.model.eval()
    n = 0
    for x, y in val_loader:
        n += (state.model(x.cuda()).argmax(-1) == y.cuda()).sum().item()  # expect: TPF002
    return n


if __name__ == "__main__":
    torch.manual_seed(0)
    net = torch.nn.Linear(4, 2)
    print(evaluate(net, [], 10), validate(net, []), check(None, []))
    MatchTrainer(net, [], [], torch.optim.SGD(net.parameters(), lr=0.1)).train(3)
