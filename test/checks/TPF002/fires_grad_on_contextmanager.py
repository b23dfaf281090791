# TPF002 inference_without_no_grad: @contextmanager helpers that leave
# autograd on where they yield (only autocast, or no_grad closed before the
# yield, or a generator nobody decorated): the loop still records a graph.
import contextlib
from contextlib import contextmanager

import torch
import torchvision


@contextmanager
def half_precision():
    with torch.autocast("cuda", dtype=torch.float16):
        yield


@contextlib.contextmanager
def warmed_up(net):
    with torch.no_grad():
        net(torch.zeros(1, 3, 224, 224).cuda())
    yield net


def batches_without_grad():
    with torch.no_grad():
        yield


def score(net, loader):
    net.eval()
    total = 0.0
    # case: autocast alone keeps autograd on
    with half_precision():
        for images, labels in loader:
            total += net(images.cuda()).softmax(-1).max().item()  # expect: TPF002
    return total


def rank(net, loader):
    net.eval()
    ranks = []
    # case: no_grad only around the warm-up, the yield runs with grad on
    with warmed_up(net):
        for images, _ in loader:
            ranks.append(net(images.cuda()).argmax(1).cpu())  # expect: TPF002
    return ranks


def embed(net, loader):
    net.eval()
    feats = []
    # case: a plain generator, not a context manager: `with` on it fails at
    # run time, and it says nothing about grad mode
    with batches_without_grad():
        for images, _ in loader:
            feats.append(net(images.cuda()).norm(dim=1).tolist())  # expect: TPF002
    return feats


model = torchvision.models.resnet18().cuda()
data = torch.utils.data.DataLoader(torchvision.datasets.FakeData(transform=None), batch_size=32)
print(score(model, data), rank(model, data), embed(model, data))
