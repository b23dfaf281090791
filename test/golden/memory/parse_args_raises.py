# tpf: target=a100
"""A training script in diffusers' examples style whose parse_args() raises ValueError when
neither a hub dataset nor a data folder is given. Run as given it stops there, so the estimate is
unknown and says so first, with the line and the raise, and how to give the run's arguments;
with `-- --dataset_name NAME` it is known (test/memory/script_args_test.cpp covers arguments)."""
import argparse

import torch
import torch.nn as nn


def parse_args():
    parser = argparse.ArgumentParser(description="Train a denoiser.")
    parser.add_argument("--dataset_name", type=str, default=None)
    parser.add_argument("--train_data_dir", type=str, default=None)
    parser.add_argument("--train_batch_size", type=int, default=16)
    parser.add_argument("--resolution", type=int, default=64)
    args = parser.parse_args()
    if args.dataset_name is None and args.train_data_dir is None:
        raise ValueError("You must specify either a dataset name from the hub or a train data directory.")
    return args


def main(args):
    model = nn.Sequential(nn.Conv2d(3, 64, 3, padding=1), nn.SiLU(), nn.Conv2d(64, 3, 3, padding=1)).cuda()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    for _ in range(100):
        x = torch.randn(args.train_batch_size, 3, args.resolution, args.resolution, device="cuda")
        loss = (model(x) - x).pow(2).mean()
        loss.backward()
        opt.step()
        opt.zero_grad()


if __name__ == "__main__":
    main(parse_args())
