# TPF001 must stay silent: what the objects keep is a number, or the
# method does not keep its argument, or the record is detached.
import torch
import torch.nn.functional as F


class AverageMeter:
    def __init__(self):
        self.sum, self.n = 0.0, 0

    def update(self, value, n=1):
        self.sum += value * n
        self.n += n


class Printer:
    def show(self, value):
        print(f"loss {value:.4f}")


def fit(model, optimizer, batches):
    torch.manual_seed(0)
    meter, printer, rows = AverageMeter(), Printer(), []
    for step, (x, y) in enumerate(batches):
        optimizer.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        optimizer.step()
        meter.update(loss.item(), x.size(0))
        printer.show(loss)
        rows.append((step, loss.detach()))
    return meter.sum / meter.n, rows
