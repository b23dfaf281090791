# TPF020 fires: `choices=` restricts some options, but the loaded path is
# the free-text one (or its choices are not written in the script).
import argparse

import torch

CHOICES = sorted(open("tasks.txt").read().split())
parser = argparse.ArgumentParser()
parser.add_argument("--task", choices=["a", "b"])
parser.add_argument("--weights", default="model.pt")
parser.add_argument("--variant", choices=CHOICES)
args = parser.parse_args()

# case: the path option next to a restricted one
state = torch.load(args.weights)  # expect: TPF020
# case: choices computed at run time, not listed
other = torch.load(args.variant)  # expect: TPF020
