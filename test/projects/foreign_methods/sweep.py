import argparse

import torch

import mixtures
from mixtures import Mixture, SquaredMixture

FAMILIES = {"gmm": Mixture, "squared": SquaredMixture}


def fit(args, loader):
    model = FAMILIES[args.family](args.k).to(args.device)
    opt = torch.optim.Adam(model.parameters(), lr=args.lr)
    for epoch in range(args.epochs):
        running_nll = 0.0
        spreads = []
        temps = []
        for x in loader:
            opt.zero_grad()
            nll = model.nll(x)
            objective = model(x)
            running_nll += nll  # expect: TPF001 (the nll's graph is never backwarded)
            spreads.append(model.spread())  # a float: silent
            temps.append(model.temp())  # a frozen parameter: silent
            objective.backward()
            opt.step()
        with torch.no_grad():
            held_out = 0.0
            for x in loader:
                held_out += model.nll(x)  # no graph under no_grad: silent
        print(epoch, running_nll / len(loader), held_out, spreads, temps)


def probe(loader):
    model = mixtures.Mixture(4)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    trace = []
    for x in loader:
        loss = model(x)
        opt.zero_grad()
        loss.backward()
        opt.step()
        trace.append(model.nll(x))  # expect: TPF001 (a second forward, stored)
    print(len(trace), "probes")


if __name__ == "__main__":
    p = argparse.ArgumentParser()
    p.add_argument("--family", default="gmm", choices=sorted(FAMILIES))
    p.add_argument("--k", type=int, default=8)
    p.add_argument("--lr", type=float, default=1e-2)
    p.add_argument("--epochs", type=int, default=10)
    p.add_argument("--device", default="cpu")
    args = p.parse_args()
    data = torch.utils.data.DataLoader(torch.randn(1024, 2), batch_size=64, shuffle=True)
    fit(args, data)
    probe(data)
