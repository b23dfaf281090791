# TPF020 torch_load_without_weights_only: a script that unpickles files
# from outside it without weights_only=True.
import argparse
import os
import sys

import torch
from huggingface_hub import hf_hub_download


def get_args():
    parser = argparse.ArgumentParser()
    parser.add_argument("--resume", default="")
    parser.add_argument("--pretrained", default="")
    parser.add_argument("--run-dir", default="runs")
    return parser.parse_args()


# case: resuming from a path given on the command line
def resume(model, optimizer, args):
    if args.resume:
        ckpt = torch.load(args.resume, map_location="cpu")  # expect: TPF020
        model.load_state_dict(ckpt["model"])
        optimizer.load_state_dict(ckpt["optimizer"])


# case: the file's own loader helper, called with a command-line option
def load_weights(model, path):
    model.load_state_dict(torch.load(path))  # expect: TPF020


# case: an environment variable, through os.path.join
def from_env(model):
    root = os.environ.get("WEIGHTS_DIR", "/weights")
    model.load_state_dict(torch.load(os.path.join(root, "backbone.pt")))  # expect: TPF020


# case: a downloaded file
def from_hub(model):
    local = hf_hub_download(repo_id="someone/some-model", filename="weights.bin")
    model.load_state_dict(torch.load(local))  # expect: TPF020


# case: sys.argv in an f-string, through open()
def from_argv():
    return torch.load(open(f"{sys.argv[1]}/model.pt", "rb"))  # expect: TPF020


def main():
    args = get_args()
    model = torch.nn.Linear(4, 2)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    resume(model, optimizer, args)
    load_weights(model, args.pretrained)
    from_env(model)
    from_hub(model)
    from_argv()
    torch.save(model.state_dict(), os.path.join("checkpoints", "last.pt"))


if __name__ == "__main__":
    main()
