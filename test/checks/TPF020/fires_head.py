# TPF020 fires: the same module-level script shape as silent_template.py,
# but here the option chooses the head of the path (the folder or the whole
# path), so the file read can be any file on the machine.
import argparse
import os

import torch

parser = argparse.ArgumentParser()
parser.add_argument("--checkpoint_dir", default="ckpt")
parser.add_argument("--resume", default="")
parser.add_argument("--epoch", type=int, default=0)
args = parser.parse_args()
net = torch.nn.Linear(4, 4)

# case: os.path.join with the option as the folder
net.load_state_dict(torch.load(os.path.join(args.checkpoint_dir, "model.bin")))  # expect: TPF020

# case: the option is the whole path
net.load_state_dict(torch.load(args.resume))  # expect: TPF020

# case: an f-string that starts with the option
net.load_state_dict(torch.load(f"{args.checkpoint_dir}/model_{args.epoch}.pt"))  # expect: TPF020

# case: a printf template that starts with a placeholder
net.load_state_dict(torch.load("%s/model.pt" % args.checkpoint_dir))  # expect: TPF020

# case: a "./" prefix fixes no folder: the option still chooses it
net.load_state_dict(torch.load("./{}/last.pt".format(args.checkpoint_dir)))  # expect: TPF020

# case: a join under a template whose head is the option itself
net.load_state_dict(torch.load(os.path.join("{}/snapshots".format(args.checkpoint_dir), "best.pth")))  # expect: TPF020
