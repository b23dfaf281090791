# TPF008 fires where the exemptions of silent_helper_steps.py and
# silent_zeroth_order.py do not hold: the shared loop helper called with
# its step flag True (handed on to the inner helper) after an evaluation in
# eval mode, and a validation pass at the end of the epoch of a
# zeroth-order loop (it perturbs nothing and runs after the step).
import torch
from torch import nn


def one_batch(net, opt, x, y, update):
    loss = nn.functional.mse_loss(net(x), y)
    if update:
        loss.backward()
        opt.step()
        opt.zero_grad()
    return float(loss)


def epoch_pass(net, opt, batches, update=False):
    total = 0.0
    for x, y in batches:
        total += one_batch(net, opt, x, y, update)
    return total


def check_then_fit(net, opt, held_out, batches):
    net.eval()  # expect: TPF008
    with torch.no_grad():
        print(epoch_pass(net, opt, held_out, False), net(held_out[0][0]).mean())
    epoch_pass(net, opt, batches, update=True)


def spsa_loop(net, opt, batches, held_out, epochs, eps=1e-3):
    for epoch in range(epochs):
        for x, y in batches:
            zs = [torch.randn_like(p) for p in net.parameters()]
            net.eval()
            for p, z in zip(net.parameters(), zs):
                p.data.add_(eps * z)
            up = float(nn.functional.mse_loss(net(x), y))
            for p, z in zip(net.parameters(), zs):
                p.data.sub_(2 * eps * z)
            down = float(nn.functional.mse_loss(net(x), y))
            for p, z in zip(net.parameters(), zs):
                p.data.add_(eps * z)
                p.grad = (up - down) / (2 * eps) * z
            opt.step()
        net.eval()  # expect: TPF008
        with torch.no_grad():
            print(sum(float(net(x).mean()) for x, _ in held_out))


def main(batches, held_out):
    net = nn.Sequential(nn.Linear(8, 32), nn.Dropout(0.1), nn.Linear(32, 4))
    opt = torch.optim.SGD(net.parameters(), lr=0.1)
    check_then_fit(net, opt, held_out, batches)
    spsa_loop(net, opt, batches, held_out, 3)
