# tpf: facts=grad
# The graph-leak shapes TPF001 looks for, and their detached counterparts.
import torch


def run(model, data, crit):
    total = 0.0
    losses = []
    clean = []
    for x, y in data:
        out = model(x)
        loss = crit(out, y)
        total += loss
        losses.append(loss)
        clean.append(loss.detach())
        with torch.no_grad():
            shadow = out * 2
        loss.backward()
    return total, losses, clean, shadow


crit = torch.nn.CrossEntropyLoss()
net = torch.nn.Linear(4, 2)
res = run(net, [], crit)
