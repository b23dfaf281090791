# TPF002 must stay silent: attributes that are methods, parts called under
# no_grad, and helper-prepared batches that train.
import argparse

import torch
import torch.nn as nn


def prepare(batch, device):
    return [t.to(device) for t in batch]


# case: an attribute only ever called is a method (HF `generate` runs under no_grad itself)
def sample(model, prompts):
    model.eval()
    outs = []
    for batch in prompts:
        batch = tuple(t.to("cuda") for t in batch)
        outs.append(model.generate(batch).tolist())
    return outs


# case: the wrapped module, under no_grad
def score(ddp_model, loader):
    ddp_model.eval()
    hits = 0
    with torch.no_grad():
        for images, labels in loader:
            hits += (ddp_model.module(images).argmax(1) == labels).sum().item()
    return hits


# case: a helper-prepared batch that trains
def fit(net, loader, opt, device):
    net.train()
    for raw in loader:
        x, y = prepare(raw, device)
        loss = nn.functional.mse_loss(net(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()


# case: the wrapped module's losses go to a backward after the loop over micro-batches
def accumulate(model, micro_batches, device):
    model.eval()
    losses = []
    for batch in micro_batches:
        batch = tuple(t.to(device) for t in batch)
        losses.append(model.module(batch))
    torch.stack(losses).sum().backward()


def make_latents(n, cls):
    return torch.randn(n, 8) + cls


# case: a loop over class indices, through a helper: no batches of a loader
def class_grid(model, n_classes):
    model.eval()
    total = 0.0
    for idx in range(n_classes):
        z = make_latents(4, idx)
        total += model(z).sum().item()
    return total


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--device", default="cuda")
    args = parser.parse_args()
    torch.manual_seed(0)
    model = nn.Linear(8, 8)
    loader = [(torch.randn(4, 8), torch.randn(4, 8))]
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    print(sample(model, loader), score(model, loader))
    fit(model, loader, opt, args.device)
    accumulate(model, loader, args.device)
    print(class_grid(model, 10))


if __name__ == "__main__":
    main()
