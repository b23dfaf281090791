# Scores the snapshots train.py wrote: the path is spelled as a template
# here, and the stage comes from an option, not a loop; it names the same
# files (`.run_root/snapshots/stage*.ckpt`), so TPF020 stays silent on it.
import argparse

import torch

parser = argparse.ArgumentParser()
parser.add_argument("--run_root", default="runs/a")
parser.add_argument("--stages", type=int, default=3)
parser.add_argument("--eval_stage", type=int, default=2)
parser.add_argument("--teacher", default="")
cfg = parser.parse_args()

net = torch.nn.Sequential(torch.nn.Linear(8, 8), torch.nn.ReLU(), torch.nn.Linear(8, 2))
state = torch.load(f"{cfg.run_root}/snapshots/stage{cfg.eval_stage:03d}.ckpt", map_location="cpu")
net.load_state_dict(state["net"])
net.eval()
with torch.no_grad():
    print(net(torch.randn(4, 8)).argmax(1))
