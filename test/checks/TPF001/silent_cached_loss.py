# TPF001 silent: the cached-loss shape (sentence-transformers' Cached*Loss).
# With `with_backward`, each mini-batch loss runs its own backward and is
# detached right away, so the list holds no graph; without it, no backward
# runs in the loop and the list is summed into the returned loss, whose
# graph the caller backwards.
import torch
import torch.nn as nn

torch.manual_seed(0)
net = nn.Linear(4, 1)
opt = torch.optim.SGD(net.parameters(), lr=0.1)


# case: detached after its backward on one path, kept for the caller on the other
def chunked_loss(x, y, with_backward):
    parts = []
    for b in range(0, len(x), 2):
        part = ((net(x[b:b + 2]) - y[b:b + 2]) ** 2).mean()
        if with_backward:
            part.backward()
            part = part.detach()
        parts.append(part)
    return sum(parts)


if __name__ == "__main__":
    for step in range(3):
        x, y = torch.randn(8, 4), torch.randn(8, 1)
        opt.zero_grad()
        loss = chunked_loss(x, y, with_backward=True)
        opt.step()
        print(loss.item())
