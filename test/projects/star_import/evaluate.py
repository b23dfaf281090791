# torch reaches this script only through star imports (common.py, and again
# through shared.py): `torch.no_grad()`, `nn`, and `no_grad` are the
# library's, so the loops under them record no graph (TPF002 silent). The
# last loop runs with autograd on and never backwards: TPF002 fires there.
from shared import *

net = build()
net.eval()

with torch.no_grad():
    for x in batches(4):
        print(net(x).argmax(1))


@torch.no_grad()
def evaluate(model, n):
    return [model(x).sum().item() for x in batches(n)]


def score(model, n):
    with no_grad():
        for x in batches(n):
            print(model(x).mean().item())


print(evaluate(net, 2))
score(net, 2)
for x in batches(4):
    print(net(x).argmax(1))
