# TPF020 torch_load_without_weights_only: a path chosen by a branch (a
# download or a file named on the command line); the message names the
# variable the branches join in.
import argparse

import torch
from huggingface_hub import hf_hub_download


# case: a converter whose annotated parameter is given a command-line argument
def convert(checkpoint_path: str, dump_path: str = "out.pt"):
    state = torch.load(checkpoint_path, map_location="cpu")  # expect: TPF020
    torch.save(state, dump_path)


# case: the checkpoint comes from the Hub or from --checkpoint
def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--repo")
    parser.add_argument("--checkpoint")
    args = parser.parse_args()
    if args.repo is not None:
        ckpt_path = hf_hub_download(repo_id=args.repo, filename="model.pt")
    else:
        ckpt_path = args.checkpoint
    print(ckpt_path)
    convert(args.checkpoint)
    return torch.load(ckpt_path, map_location="cpu")  # expect: TPF020


if __name__ == "__main__":
    main()
