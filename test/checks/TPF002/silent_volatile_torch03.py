# tpf: torch-version=0.3
# Code written for torch 0.3 (the project pins it, or its README says so):
# `Variable(x, volatile=True)` turns autograd off for the whole forward, so
# a validation pass over volatile inputs records no graph.
import torch
import torch.nn as nn
from torch.autograd import Variable

torch.manual_seed(0)


def score(net, loader, use_cuda):
    net.eval()
    hits = 0
    for batch in loader:
        images, labels = batch
        if use_cuda:
            images = Variable(images.cuda(), volatile=True)
        else:
            images = Variable(images.cpu(), volatile=True)
        scores = net(images)
        hits += (scores.data.max(1)[1].cpu() == labels).sum()
    print("hits", hits)


def validate(net, loader, phase):
    net.eval()
    total = 0.0
    for x, y in loader:
        x, y = Variable(x.cuda(), volatile=phase != "train"), Variable(y.cuda())
        total += nn.functional.cross_entropy(net(x), y).data[0]
    print(phase, total)


net = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 4))
data = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(torch.randn(64, 8), torch.randint(0, 4, (64,))))
score(net, data, False)
validate(net, data, "val")
