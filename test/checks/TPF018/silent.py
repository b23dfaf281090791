# TPF018 must stay silent: evaluation in eval mode, or not after training.
import torch
import torch.nn.functional as F


# case: eval() before the validation loop
def train(model, train_loader, val_loader, optimizer, epochs):
    for epoch in range(epochs):
        model.train()
        for x, y in train_loader:
            optimizer.zero_grad()
            F.cross_entropy(model(x), y).backward()
            optimizer.step()
        model.eval()
        with torch.no_grad():
            for x, y in val_loader:
                print((model(x).argmax(1) == y).sum().item())


# case: evaluate() after model.eval() at the call site
@torch.no_grad()
def evaluate(net, loader):
    total = 0.0
    for x, y in loader:
        total += F.mse_loss(net(x), y).item()
    return total


def fit(net, train_loader, val_loader, opt, epochs):
    for epoch in range(epochs):
        net.train()
        for x, y in train_loader:
            opt.zero_grad()
            F.mse_loss(net(x), y).backward()
            opt.step()
        net.eval()
        print(evaluate(net, val_loader))


# case: the helper calls eval() itself
@torch.no_grad()
def validate(model, loader):
    model.eval()
    return sum(F.mse_loss(model(x), y).item() for x, y in loader)


def fit_validate(model, train_loader, val_loader, opt, epochs):
    for epoch in range(epochs):
        model.train()
        for x, y in train_loader:
            opt.zero_grad()
            F.mse_loss(model(x), y).backward()
            opt.step()
        print(validate(model, val_loader))


# case: batch-norm recalibration: an explicit train() before the no_grad loop
def recalibrate(model, train_loader, loader, opt):
    for x, y in train_loader:
        opt.zero_grad()
        F.mse_loss(model(x), y).backward()
        opt.step()
    model.train()
    with torch.no_grad():
        for x, _ in loader:
            model(x)


# case: an inference script: no training step leads to the loop
def predict(model, loader):
    with torch.no_grad():
        for x in loader:
            print(model(x).argmax(1))


# case: a library call handed the model may set the mode
def fit_hooks(model, train_loader, val_loader, opt, callbacks):
    for x, y in train_loader:
        opt.zero_grad()
        F.mse_loss(model(x), y).backward()
        opt.step()
    callbacks.on_validation_start(model)
    with torch.no_grad():
        for x, y in val_loader:
            print(F.mse_loss(model(x), y).item())


# case: evaluation of a different model (an EMA copy)
def fit_ema(model, ema_model, train_loader, val_loader, opt):
    for x, y in train_loader:
        opt.zero_grad()
        F.mse_loss(model(x), y).backward()
        opt.step()
    ema_model.eval()
    with torch.no_grad():
        for x, y in val_loader:
            print(F.mse_loss(ema_model(x), y).item())


# case: an RL rollout over range() after a policy update
def ppo(policy, env, opt, batches, horizon):
    for obs, act, adv in batches:
        opt.zero_grad()
        (-(policy(obs).log_softmax(-1)[act] * adv).mean()).backward()
        opt.step()
    obs = env.reset()
    with torch.no_grad():
        for t in range(horizon):
            obs = env.interact(policy(obs).argmax(-1))
