# TPF001 fires: the backward runs on every path but the detach only on one,
# so the other path stores the graph of every step in the history.
import torch
import torch.nn as nn

torch.manual_seed(0)
net = nn.Linear(4, 1)
opt = torch.optim.SGD(net.parameters(), lr=0.1)


# case: detached only on logging steps; the other steps keep their graphs
def train(steps, log_every):
    history = []
    for step in range(steps):
        x, y = torch.randn(8, 4), torch.randn(8, 1)
        loss = ((net(x) - y) ** 2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % log_every == 0:
            loss = loss.detach()
        history.append(loss)  # expect: TPF001
    print(len(history))


if __name__ == "__main__":
    train(10, 5)
