# tpf: torch-version=1.4
# The same torch-0.3 idiom on a project that declares torch 1.4:
# `volatile=True` has done nothing since 0.4, so the forward records a graph.
import torch
import torch.nn as nn
from torch.autograd import Variable

torch.manual_seed(0)


def validate(net, loader):
    net.eval()
    hits = 0
    for x, y in loader:
        x = Variable(x.cuda(), volatile=True)
        hits += (net(x).argmax(1) == y).sum().item()  # expect: TPF002
    return hits


net = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 4))
data = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(torch.randn(64, 8), torch.randint(0, 4, (64,))))
print(validate(net, data))
