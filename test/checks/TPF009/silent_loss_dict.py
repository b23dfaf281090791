# TPF009 device_sync_in_inner_loop: the step's loss terms, a few entries of
# a dict fixed by the code, read for the log once per step.
import torch

torch.manual_seed(0)


# case: a dict comprehension over the loss terms
def train(model, loader, opt, log):
    for batch in loader:
        losses = model(batch)
        total = sum(losses.values())
        opt.zero_grad()
        total.backward()
        opt.step()
        log({name: value.item() for name, value in losses.items()})


# case: a loop over the values of the loss dict
def train_sum(model, loader, opt):
    for batch in loader:
        terms = model(batch)
        opt.zero_grad()
        sum(terms.values()).backward()
        opt.step()
        logged = 0.0
        for v in terms.values():
            logged += v.item()
        print(logged)


if __name__ == "__main__":
    train(None, [], None, print)
