# A DARTS-style script: --save is the run folder it writes its checkpoints
# into through ckpt_io's helpers, and --resume reloads that same folder.
# TPF020 stays silent: the loads read what this script saved (the folder
# parameter of the helpers, followed across the import). --load_from is a
# folder the script never writes: that load is flagged.
import argparse
import os

import torch

import ckpt_io
from ckpt_io import snapshot

parser = argparse.ArgumentParser()
parser.add_argument("--save", default="run")
parser.add_argument("--out", default="snap")
parser.add_argument("--load_from", default="")
parser.add_argument("--resume", action="store_true")
args = parser.parse_args()

model = torch.nn.Linear(4, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
if args.resume:
    model = torch.load(os.path.join(args.save, "model.pt"))
    optimizer.load_state_dict(torch.load(os.path.join(args.save, "optimizer.pt")))
    epoch = torch.load(os.path.join(args.save, "misc.pt"))["epoch"]
    model.load_state_dict(torch.load(os.path.join(args.out, "weights_0.pt")))
if args.load_from:
    model.load_state_dict(torch.load(os.path.join(args.load_from, "model.pt")))
for epoch in range(3):
    for _ in range(10):
        loss = model(torch.randn(8, 4)).pow(2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    ckpt_io.save_checkpoint(model, optimizer, epoch, args.save)
    snapshot(model, args.out)
