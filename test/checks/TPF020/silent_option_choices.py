# TPF020 silent: the option that names the checkpoint is restricted by
# `choices=` to names the script lists, each one of the pretrained files
# shipped with the project: no path comes from outside.
import argparse
import os

import torch
import torch.nn as nn

parser = argparse.ArgumentParser()
parser.add_argument("--task", required=True, choices=["Deblurring", "Denoising", "Deraining"])
parser.add_argument("--size", dest="model_size", choices=("small", "large"), default="small")
args = parser.parse_args()


def load_checkpoint(model, weights):
    checkpoint = torch.load(weights)
    model.load_state_dict(checkpoint["state_dict"])


model = nn.Conv2d(3, 3, 3)
# case: the file named after a `--task` choice
weights = os.path.join(args.task, "pretrained_models", "model_" + args.task.lower() + ".pth")
load_checkpoint(model, weights)
# case: a `dest=` option with a tuple of choices
state = torch.load(f"{args.model_size}.pt", map_location="cpu")
