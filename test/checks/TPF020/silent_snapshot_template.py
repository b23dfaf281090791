# TPF020 silent: a test script in the style of semi-supervised segmentation repositories. The
# snapshot folder is a template whose head the script writes out ("../model/"); the options only
# fill the experiment's names inside it, and the checkpoint file is joined under that folder:
# the file is the one the training script wrote, not one the user points anywhere.
import argparse
import os

import torch
import torch.nn as nn

parser = argparse.ArgumentParser()
parser.add_argument("--exp", type=str, default="ACDC/Fully_Supervised")
parser.add_argument("--num_labeled", type=int, default=7)
parser.add_argument("--arch", type=str, default="unet")
FLAGS = parser.parse_args()


def evaluate(flags):
    snapshot = "../model/{}_{}_labeled/{}".format(flags.exp, flags.num_labeled, flags.arch)
    net = nn.Conv2d(1, 4, 3)
    best = os.path.join(snapshot, "{}_best_model.pth".format(flags.arch))
    net.load_state_dict(torch.load(best))
    # the same with an f-string head and a second join level
    last = os.path.join(os.path.join(f"runs/{flags.exp}", flags.arch), "last.pth")
    net.load_state_dict(torch.load(last))
    return net.eval()


if __name__ == "__main__":
    evaluate(FLAGS)
