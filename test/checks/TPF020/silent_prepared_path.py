# TPF020 must stay silent: the script reloads a file it saved itself, whose
# path went to torch.save through a one-argument helper that makes its
# folder and returns it (`make_path(path)`).
import argparse
import os

import torch
import torch.nn as nn


def make_path(f):
    d = os.path.dirname(f)
    if d and not os.path.exists(d):
        os.makedirs(d)
    return f


# case: the best model saved under the output folder, reloaded at the end
def run(model, save_dir, desc, epochs):
    for epoch in range(epochs):
        path = os.path.join(save_dir, desc, "best_params")
        torch.save(model.state_dict(), make_path(path))
    path = os.path.join(save_dir, desc, "best_params")
    model.load_state_dict(torch.load(path))


# case: the same variable, saved through the helper and loaded back
def resave(model, out):
    ckpt = os.path.join(out, "last.pt")
    torch.save(model.state_dict(), make_path(ckpt))
    model.load_state_dict(torch.load(ckpt))


# case: the helper wrapped in str()
def keep(model, out):
    target = os.path.join(out, "keep.pt")
    torch.save(model, str(make_path(target)))
    return torch.load(target)


# case: module code saving and reloading under --save_dir
if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--save_dir", default="save/")
    args = ap.parse_args()
    net = nn.Linear(4, 4)
    best = os.path.join(args.save_dir, "net.pt")
    torch.save(net.state_dict(), make_path(best))
    net.load_state_dict(torch.load(best))
    run(net, args.save_dir, "lin", 2)
