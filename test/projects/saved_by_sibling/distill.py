# Starts a student from a teacher file that only an option names: no
# script of the folder writes `cfg.teacher` or `.run_root/teacher/*.ckpt`,
# so both loads are flagged.
import argparse

import torch

parser = argparse.ArgumentParser()
parser.add_argument("--run_root", default="runs/a")
parser.add_argument("--stages", type=int, default=3)
parser.add_argument("--eval_stage", type=int, default=2)
parser.add_argument("--teacher", default="")
cfg = parser.parse_args()

teacher = torch.nn.Linear(8, 2)
teacher.load_state_dict(torch.load(cfg.teacher))
extra = torch.load(f"{cfg.run_root}/teacher/stage{cfg.eval_stage:03d}.ckpt")
student = torch.nn.Linear(8, 2)
with torch.no_grad():
    print((student(torch.randn(4, 8)) - teacher(torch.randn(4, 8))).abs().mean(), extra)
