# TPF020 torch_load_without_weights_only: correct loads that must stay silent.
import argparse
import os

import torch


def get_args():
    parser = argparse.ArgumentParser()
    parser.add_argument("--resume", default="")
    parser.add_argument("--out-dir", default="out")
    parser.add_argument("--save", default="model.pt")
    return parser.parse_args()


# case: weights_only=True on a command-line path
def resume(model, args):
    model.load_state_dict(torch.load(args.resume, map_location="cpu", weights_only=True))


# case: weights_only=False spelled out: a deliberate choice for a trusted file
def resume_full(args):
    return torch.load(args.resume, weights_only=False)


# case: the script's own checkpoint: saved and loaded through the same option
def save_and_reload(model, args):
    torch.save(model.state_dict(), args.save)
    model.load_state_dict(torch.load(args.save, map_location="cpu"))


# case: a file in the script's own output folder (another expression)
def best_checkpoint(model, args):
    best = os.path.join(args.out_dir, "best.pt")
    torch.save(model.state_dict(), best)
    model.load_state_dict(torch.load(os.path.join(args.out_dir, "best.pt"), map_location="cpu"))


# case: a path the script fixes itself
def cached_data():
    return torch.load("data/train_cache.pt")


# case: a path of unknown origin (a helper of another module)
def from_registry(model, registry):
    model.load_state_dict(torch.load(registry.latest_path()))


def main():
    args = get_args()
    model = torch.nn.Linear(4, 2)
    resume(model, args)
    resume_full(args)
    save_and_reload(model, args)
    best_checkpoint(model, args)
    cached_data()


if __name__ == "__main__":
    main()
