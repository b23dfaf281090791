# The training script of a folder of scripts: it writes one snapshot per
# stage under the run folder its options name (`cfg.run_root`), in a
# `snapshots` subfolder. evaluate.py and distill.py take the same options.
import argparse
import os

import torch

parser = argparse.ArgumentParser()
parser.add_argument("--run_root", default="runs/a")
parser.add_argument("--stages", type=int, default=3)
parser.add_argument("--eval_stage", type=int, default=2)
parser.add_argument("--teacher", default="")
cfg = parser.parse_args()

torch.manual_seed(0)
net = torch.nn.Sequential(torch.nn.Linear(8, 8), torch.nn.ReLU(), torch.nn.Linear(8, 2))
opt = torch.optim.AdamW(net.parameters(), lr=1e-3)
snap_dir = os.path.join(cfg.run_root, "snapshots")
os.makedirs(snap_dir, exist_ok=True)
for stage in range(cfg.stages):
    for _ in range(10):
        x = torch.randn(16, 8)
        loss = net(x).square().mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    torch.save({"net": net.state_dict(), "stage": stage}, snap_dir + "/stage%03d.ckpt" % stage)
