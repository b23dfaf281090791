# TPF004 must stay silent: a sum-reduced loss over sub-batches adds up to
# exactly the full batch's sum, so the undivided accumulation applies what
# the loss means (the mean needs the division, the sum does not).
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
loss_fn = nn.BCELoss(reduction="sum").cuda()


# case: a module global built with reduction="sum" (and moved to the GPU)
def train(net, opt, loader, accu_steps, sub):
    for x, y in loader:
        opt.zero_grad()
        for k in range(accu_steps):
            loss = loss_fn(net(x[k * sub:(k + 1) * sub]), y[k * sub:(k + 1) * sub])
            loss.backward()
        opt.step()


# case: the functional form with reduction="sum"
def train_functional(net, opt, loader, accum):
    for x, y in loader:
        opt.zero_grad()
        for xs, ys in zip(x.chunk(accum), y.chunk(accum)):
            F.cross_entropy(net(xs), ys, reduction="sum").backward()
        opt.step()


# case: the legacy size_average=False of torch 0.3
def train_legacy(net, opt, loader, accum):
    crit = nn.MSELoss(size_average=False)
    for x, y in loader:
        opt.zero_grad()
        for i in range(accum):
            crit(net(x[i]), y[i]).backward()
        opt.step()


# case: a criterion built with reduction="sum" and handed to the loop's function
def fit(net, opt, batches, accum):
    criterion = nn.L1Loss(reduction="sum")
    for step, (x, y) in enumerate(batches):
        criterion(net(x), y).backward()
        if (step + 1) % accum == 0:
            opt.step()
            opt.zero_grad()
