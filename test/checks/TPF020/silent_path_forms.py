# TPF020 silent: a two-stage run (fit a backbone, then adapt it) that reads
# back the files its first stage wrote. The save and the load spell the same
# path differently: os.path.join against `+ "/"`, an f-string, a printf
# template, str.format or pathlib's `/`; the folder is an attribute of the
# parsed options that main() sets itself, or a folder taken from sys.argv.
# Each load names a file this run saved, not a path from outside.
import argparse
import os
import sys
from pathlib import Path

import torch


def fit(cfg, net):
    torch.save(net.state_dict(), os.path.join(cfg.work, "stem.pt"))
    torch.save(net.state_dict(), Path(cfg.work) / "neck.pt")
    torch.save(net.state_dict(), f"{cfg.work}/head.pt")


def adapt(cfg, net):
    # case: `+ "/"` against a join
    net.load_state_dict(torch.load(cfg.work + "/stem.pt"))
    # case: a printf template against pathlib
    net.load_state_dict(torch.load("%s/neck.pt" % cfg.work))
    # case: str.format against an f-string
    net.load_state_dict(torch.load("{}/head.pt".format(cfg.work)))
    # case: the path goes through another attribute the script sets
    cfg.weights = cfg.work + "/" + "stem.pt"
    net.load_state_dict(torch.load(cfg.weights))


def from_argv(net):
    # case: a folder from the command line, saved as a join, read as a sum
    run = sys.argv[1]
    torch.save(net.state_dict(), os.path.join(run, "last.pt"))
    net.load_state_dict(torch.load(run + "/last.pt"))
    # case: pathlib against a printf template
    torch.save(net.state_dict(), Path(run) / "best.pt")
    net.load_state_dict(torch.load("%s/best.pt" % run))


def odd_template(cfg, net):
    # case: a field index past any call's arguments (str.format would raise):
    # no spelling is made of it, and the same text is still the same file
    torch.save(net.state_dict(), "{123456789012345678901}/m.pt".format(cfg.work))
    net.load_state_dict(torch.load("{123456789012345678901}/m.pt".format(cfg.work)))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--root", default="runs")
    parser.add_argument("--stage", default="fit")
    cfg = parser.parse_args()
    cfg.work = os.path.join(cfg.root, cfg.stage)
    net = torch.nn.Linear(8, 2)
    fit(cfg, net)
    adapt(cfg, net)


if __name__ == "__main__":
    main()
