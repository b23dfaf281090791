# Starts a student from files no script of the folder writes: a teacher
# the config names (`opt.teacher`: no literal file name) and one under
# `opt.run_root/teacher`; and warm_start's snapshot, spelled as train.py
# spells its own, but from the command line's --run_root (warm_start is
# given the parsed arguments: an option picks the folder on each run). All
# three loads are flagged.
import argparse

import torch
import yaml


class Settings:
    def __init__(self, d):
        self.__dict__.update(d)


def warm_start(opt):
    return torch.load(f"{opt.run_root}/snapshots/stage{opt.stages:03d}.ckpt")


def distill(opt, warm):
    teacher = torch.nn.Linear(8, 2)
    teacher.load_state_dict(torch.load(opt.teacher))
    extra = torch.load(f"{opt.run_root}/teacher/stage{opt.stages:03d}.ckpt")
    student = torch.nn.Linear(8, 2)
    with torch.no_grad():
        print((student(torch.randn(4, 8)) - teacher(torch.randn(4, 8))).abs().mean(), extra, warm)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--config", default="cfg/small.yaml")
    parser.add_argument("--run_root", default="runs/a")
    parser.add_argument("--stages", type=int, default=3)
    cli = parser.parse_args()
    with open(cli.config) as fh:
        settings = Settings(yaml.safe_load(fh))
    distill(settings, warm_start(cli))
