# TPF003 silent: the clear and the step are decided by the same test of a
# value fixed for the whole loop (an optional optimizer, a flag). In every
# iteration that steps, the clear runs too; the path that skips the clear
# takes the other arm at the step as well.
import torch


def sgd(params, lr):
    with torch.no_grad():
        for p in params:
            p -= lr * p.grad
            p.grad.zero_()


# case: optional optimizer, `is not None` at the clear, `is None` ... else at the step
def train(net, batches, loss_fn, params=None, lr=0.1, optimizer=None):
    for x, y in batches:
        loss = loss_fn(net(x), y).sum()
        if optimizer is not None:
            optimizer.zero_grad()
        elif params is not None and params[0].grad is not None:
            for p in params:
                p.grad.data.zero_()
        loss.backward()
        if optimizer is None:
            sgd(params, lr)
        else:
            optimizer.step()


# case: the same flag, once negated
def fit(model, loader, opt, use_opt):
    for x, y in loader:
        if use_opt:
            opt.zero_grad()
        loss = torch.nn.functional.mse_loss(model(x), y)
        loss.backward()
        if not use_opt:
            continue
        opt.step()


# case: an option compared with the same constant at both places
def run(model, loader, opt, args):
    for x, y in loader:
        if args.mode == "sgd":
            opt.zero_grad()
        loss = model(x).sub(y).pow(2).mean()
        loss.backward()
        if args.mode == "sgd":
            opt.step()
