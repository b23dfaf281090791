# TPF004 must fire: Adam with no clipping in the file, but its L2
# weight_decay is added to the gradient before the moments, here set per
# parameter group: the undivided sum of `every` gradients outweighs the
# decay `every` times, so the step is not the mean's.
import torch
import torch.nn.functional as F


def grouped(net, batches, every, decay):
    groups = [{"params": net.body.parameters(), "weight_decay": decay},
              {"params": net.head.parameters(), "weight_decay": 0.0}]
    adam = torch.optim.Adam(groups, lr=1e-3)
    for n, (x, y) in enumerate(batches):
        F.cross_entropy(net(x), y).backward()  # expect: TPF004
        if (n + 1) % every == 0:
            adam.step()
            adam.zero_grad()


def coupled(net, batches, every):
    adam = torch.optim.Adam(net.parameters(), 1e-3, (0.9, 0.999), 1e-8, 5e-4)
    for n, (x, y) in enumerate(batches):
        F.cross_entropy(net(x), y).backward()  # expect: TPF004
        if (n + 1) % every == 0:
            adam.step()
            adam.zero_grad()
