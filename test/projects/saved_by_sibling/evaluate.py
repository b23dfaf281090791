# Scores the snapshots train.py wrote: the path is an f-string here and the
# stage a parameter, not a loop; both name `opt.run_root/snapshots/stage*.ckpt`
# of the same config, so TPF020 stays silent on the load.
import argparse

import torch
import yaml


class Settings:
    def __init__(self, d):
        self.__dict__.update(d)


def score(opt, stage):
    net = torch.nn.Sequential(torch.nn.Linear(8, 8), torch.nn.ReLU(), torch.nn.Linear(8, 2))
    state = torch.load(f"{opt.run_root}/snapshots/stage{stage:03d}.ckpt", map_location="cpu")
    net.load_state_dict(state["net"])
    net.eval()
    with torch.no_grad():
        return net(torch.randn(4, 8)).argmax(1)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--config", default="cfg/small.yaml")
    with open(parser.parse_args().config) as fh:
        settings = Settings(yaml.safe_load(fh))
    for s in range(settings.stages):
        print(score(settings, s))
