# TPF020 fires: paths spelled like a saved one but naming another file or
# another folder, and templates whose folder an option chooses.
import argparse
import os
import sys

import torch

ap = argparse.ArgumentParser()
ap.add_argument("--out", default="o")
ap.add_argument("--dir", default="d")
ap.add_argument("--epochs", type=int, default=1)
opt = ap.parse_args()
net = torch.nn.Linear(2, 2)
run = sys.argv[1]
torch.save(net.state_dict(), os.path.join(run, "last.pt"))

# case: the same folder from argv, another file
net.load_state_dict(torch.load(run + "/teacher.pt"))  # expect: TPF020
# case: another argv folder, the same file name
net.load_state_dict(torch.load(sys.argv[2] + "/last.pt"))  # expect: TPF020
# case: a template variable whose head is the option's folder
tmpl = "{}/ep%d.pt".format(opt.dir)
net.load_state_dict(torch.load(tmpl % opt.epochs))  # expect: TPF020


def rebound(net):
    # case: the same name, rebound to another folder from the command line
    d = sys.argv[1]
    torch.save(net.state_dict(), os.path.join(d, "w.pt"))
    d = sys.argv[2]
    net.load_state_dict(torch.load(d + "/w.pt"))  # expect: TPF020


rebound(net)
