# tpf: torch-version=0.3
# On torch 0.3, `volatile=True` on the labels alone leaves the forward of
# the (non-volatile) images recording a graph.
import torch
import torch.nn as nn
from torch.autograd import Variable

torch.manual_seed(0)


def validate_labels_only(net, loader):
    net.eval()
    hits = 0
    for x, y in loader:
        y = Variable(y, volatile=True)
        hits += (net(x).argmax(1) == y).sum().item()  # expect: TPF002
    return hits


net = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 4))
data = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(torch.randn(64, 8), torch.randint(0, 4, (64,))))
print(validate_labels_only(net, data))
