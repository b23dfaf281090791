# TPF015 through a loop over phases: the epoch loop around `for phase in
# ("train", "val"):` is still the epoch loop, so an epoch schedule stepped in
# the batch loop inside the phase loop advances once per batch.
import torch
import torch.nn.functional as F


# case: StepLR stepped per batch, two loops below the epoch loop
def fit(net, loaders, epochs):
    opt = torch.optim.SGD(net.parameters(), lr=0.1)
    sched = torch.optim.lr_scheduler.StepLR(opt, step_size=10)
    for epoch in range(epochs):
        for phase in ("train", "val"):
            net.train(phase == "train")
            for x, y in loaders[phase]:
                with torch.set_grad_enabled(phase == "train"):
                    loss = F.cross_entropy(net(x), y)
                if phase == "train":
                    opt.zero_grad()
                    loss.backward()
                    opt.step()
                    sched.step()  # expect: TPF015
