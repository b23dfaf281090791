# TPF020 silent: `args.resume_file` is no option of this script's parser
# (only --resume is), and nothing sets it: the load is no command-line path
# (`args.resume_file` raises AttributeError before torch.load runs).
import argparse

import torch


def run(args):
    net = torch.nn.Linear(3, 3)
    if args.resume:
        # case: an attribute no add_argument defines and the script never sets
        net.load_state_dict(torch.load(args.resume_file))
    for _ in range(args.steps):
        net(torch.randn(2, 3)).sum().backward()


if __name__ == "__main__":
    p = argparse.ArgumentParser()
    p.add_argument("--resume", action="store_true")
    p.add_argument("-n", "--steps", type=int, default=1)
    torch.manual_seed(0)
    run(p.parse_args())
