# TPF001 must fire: the loss is kept across steps by a user class's method,
# inside a record, and as an expression of it.
import torch
import torch.nn.functional as F


class RunningStats:
    def __init__(self):
        self.total = 0.0
        self.count = 0

    def update(self, value, n=1):
        self.total += value * n
        self.count += n


class History:
    def __init__(self):
        self.rows = []

    def add(self, row):
        self.rows.append(row)


def fit(model, optimizer, batches):
    torch.manual_seed(0)
    stats = RunningStats()
    history = History()
    records = []
    for step, (x, y) in enumerate(batches):
        optimizer.zero_grad(set_to_none=True)
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        optimizer.step()
        stats.update(loss, x.shape[0])  # expect: TPF001
        history.add(loss)  # expect: TPF001
        records.append({"step": step, "loss": loss})  # expect: TPF001
    return stats.total / stats.count, history, records
