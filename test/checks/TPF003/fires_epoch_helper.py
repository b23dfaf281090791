# TPF003 once per bug: a helper runs the batch loop (backward and step, no
# clear) and an epoch loop calls it. The finding is at the helper's backward,
# where the clear goes; the epoch loop that calls it is a note, not a second
# finding.
import torch
import torch.nn.functional as F


# case: an epoch loop calls the helper that runs the batch loop
def one_epoch(net, batches, opt):
    total = 0.0
    for x, y in batches:
        loss = F.cross_entropy(net(x), y)
        loss.backward()  # expect: TPF003
        opt.step()
        total += loss.item()
    return total


def fit(net, batches, epochs, lr):
    opt = torch.optim.AdamW(net.parameters(), lr=lr)
    for epoch in range(epochs):
        print(epoch, one_epoch(net, batches, opt))


# case: the batch loop is two calls below the epoch loop
def train_batches(net, stream, opt, steps):
    it = iter(stream)
    for _ in range(steps):
        x, y = next(it)
        F.mse_loss(net(x), y).backward()  # expect: TPF003
        opt.step()


def run_epoch(net, stream, opt, steps):
    net.train()
    train_batches(net, stream, opt, steps)


def fit_wrapped(net, stream, epochs, opt):
    for _ in range(epochs):
        run_epoch(net, stream, opt, 100)
