# TPF020 fires: paths the parsed options do carry, in a file whose parser
# names every option: an option named by `dest=`, and an attribute the
# script builds from an option.
import argparse

import torch

p = argparse.ArgumentParser()
p.add_argument("--from", dest="source", default="")
p.add_argument("--load_dir", default="")
args = p.parse_args()
net = torch.nn.Linear(3, 3)

# case: the option's dest
net.load_state_dict(torch.load(args.source))  # expect: TPF020
# case: an attribute the script sets from an option
args.ckpt = args.load_dir + "/m.pt"
net.load_state_dict(torch.load(args.ckpt))  # expect: TPF020
