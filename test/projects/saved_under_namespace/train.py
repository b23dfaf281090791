# A contrastive-style script whose --restart re-reads a snapshot that
# snapshots.write_snapshot wrote under --snap_dir: it hands the whole
# namespace to the writer, which picks the folder from it. TPF020 stays
# silent on those loads; --teacher, a file nothing here writes, is flagged.
import argparse
import os

import torch

from snapshots import write_snapshot

parser = argparse.ArgumentParser()
parser.add_argument("--snap_dir", default="snaps")
parser.add_argument("--restart", type=int, default=0)
parser.add_argument("--keep_last", action="store_true")
parser.add_argument("--teacher", default="")
args = parser.parse_args()

net = torch.nn.Linear(6, 6)
opt = torch.optim.Adam(net.parameters())
if args.restart:
    snap = os.path.join(args.snap_dir, "snap_{:05d}.pt".format(args.restart))
    net.load_state_dict(torch.load(snap, map_location="cpu"))
elif args.keep_last:
    net.load_state_dict(torch.load(f"{args.snap_dir}/last.pt"))
if args.teacher:
    net.load_state_dict(torch.load(args.teacher))
torch.manual_seed(0)
for step in range(args.restart, 100):
    loss = net(torch.randn(4, 6)).square().mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 10 == 0:
        write_snapshot(args, net, step)
