# The training script of a folder of scripts: its YAML config (the file
# --config names) gives the run folder, `run_root`; one snapshot per stage
# goes under `run_root/snapshots`. evaluate.py and distill.py read the
# same config the same way.
import argparse
import os

import torch
import yaml


class Settings:
    def __init__(self, d):
        self.__dict__.update(d)


def fit(opt):
    snap_dir = os.path.join(opt.run_root, "snapshots")
    os.makedirs(snap_dir, exist_ok=True)
    net = torch.nn.Sequential(torch.nn.Linear(8, 8), torch.nn.ReLU(), torch.nn.Linear(8, 2))
    sgd = torch.optim.AdamW(net.parameters(), lr=1e-3)
    for stage in range(opt.stages):
        for _ in range(10):
            loss = net(torch.randn(16, 8)).square().mean()
            sgd.zero_grad()
            loss.backward()
            sgd.step()
        torch.save({"net": net.state_dict(), "stage": stage}, snap_dir + "/stage%03d.ckpt" % stage)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--config", default="cfg/small.yaml")
    with open(parser.parse_args().config) as fh:
        settings = Settings(yaml.safe_load(fh))
    torch.manual_seed(0)
    fit(settings)
