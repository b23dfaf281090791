# TPF003 fires: a new optimizer every iteration does not clear the
# gradients of a model built once, before the loop; they still add up
# across iterations (the new optimizer's step applies their sum).
import torch


# case: the optimizer is rebuilt per epoch over the same model
def train(model, loader, lr):
    for epoch in range(10):
        opt = torch.optim.SGD(model.parameters(), lr=lr * 0.9**epoch)
        for x, y in loader:
            loss = torch.nn.functional.mse_loss(model(x), y)
            loss.backward()  # expect: TPF003
            opt.step()


# case: a fresh optimizer per batch, over a module-level model
torch.manual_seed(0)
net = torch.nn.Linear(4, 1)
for x in [torch.randn(8, 4)] * 10:
    sgd = torch.optim.SGD(net.parameters(), lr=0.1)
    net(x).pow(2).mean().backward()  # expect: TPF003
    sgd.step()
