# TPF020 fires: the parser's options are named at run time (from a dict of
# defaults), so an attribute no literal `add_argument` names may still be a
# command-line argument.
import argparse

import torch

defaults = {"init": "", "epochs": 1}
parser = argparse.ArgumentParser()
parser.add_argument("--tag", default="x")
for key, value in defaults.items():
    parser.add_argument("--" + key, default=value)
args = parser.parse_args()
net = torch.nn.Linear(3, 3)

# case: an option made from the dict's keys
net.load_state_dict(torch.load(args.init))  # expect: TPF020
