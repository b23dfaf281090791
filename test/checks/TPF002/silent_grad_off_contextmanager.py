# TPF002 inference_without_no_grad: the file's own @contextmanager helpers
# that switch grad mode off around their `yield` (inference_mode, no_grad,
# set_grad_enabled(False), alone or stacked with autocast): the loop in the
# caller's `with` body records no graph.
import contextlib
from contextlib import contextmanager

import torch
import torchvision


@contextlib.contextmanager
def frozen_autograd(dtype):
    with torch.autocast("cuda", dtype=dtype), torch.inference_mode():
        yield


@contextmanager
def scoring():
    previous = torch.is_grad_enabled()
    torch.set_grad_enabled(False)
    try:
        yield
    finally:
        torch.set_grad_enabled(previous)


@contextmanager
def quiet_grad():
    with torch.no_grad():
        with contextlib.suppress(KeyboardInterrupt):
            yield


def score(net, loader):
    net.eval()
    total = 0.0
    # case: a stacked autocast + inference_mode manager of this file
    with frozen_autograd(torch.float16):
        for images, labels in loader:
            total += net(images.cuda()).softmax(-1).max().item()
    return total


def rank(net, loader):
    net.eval()
    ranks = []
    # case: set_grad_enabled(False) before the yield, restored after it
    with scoring():
        for images, _ in loader:
            ranks.append(net(images.cuda()).argmax(1).cpu())
    return ranks


def embed(net, loader):
    net.eval()
    feats = []
    # case: the grad-off `with` nested outside another `with` in the helper,
    # the caller's loop one `with` deeper
    with quiet_grad(), open("embeddings.log", "w") as log:
        for images, _ in loader:
            feats.append(net(images.cuda()).norm(dim=1).tolist())
            log.write("batch\n")
    return feats


model = torchvision.models.resnet18().cuda()
data = torch.utils.data.DataLoader(torchvision.datasets.FakeData(transform=None), batch_size=32)
print(score(model, data), rank(model, data), embed(model, data))
