# TPF020 silent: the script names its checkpoints once, in a template
# variable whose folder is literal (`ckpt/...`), and both torch.save and the
# final reload fill it: options only choose a name or an epoch inside the
# script's own folder.
import argparse

import torch

ap = argparse.ArgumentParser()
ap.add_argument("--arch", default="r18")
ap.add_argument("--tag", default="base")
ap.add_argument("--epochs", type=int, default=2)
opt = ap.parse_args()
net = torch.nn.Linear(4, 4)

# case: a str.format result used as a printf template
pattern = "ckpt/{}-{}/ep%03d.pt".format(opt.arch, opt.tag)
# case: an f-string prefix, extended by `+` and by another f-string
stem = f"ckpt/{opt.arch}"
for ep in range(opt.epochs):
    torch.save(net.state_dict(), pattern % (ep + 1))
    torch.save(net.state_dict(), stem + "_last.pt")
net.load_state_dict(torch.load(pattern % opt.epochs))
net.load_state_dict(torch.load(stem + "_last.pt"))
net.load_state_dict(torch.load(f"{stem}/{opt.tag}.pt"))
