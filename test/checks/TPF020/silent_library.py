# TPF020 torch_load_without_weights_only: library code (not run as a
# program) loads paths its caller chose; the caller decides.
import os

import torch


# case: a loader function of a library
def load_checkpoint(path, map_location="cpu"):
    return torch.load(path, map_location=map_location)


# case: an environment variable in a library
def load_from_env():
    return torch.load(os.environ["MODEL_PATH"])


# case: a parameter named args in a library function
def restore(model, args):
    model.load_state_dict(torch.load(args.resume))


# case: **kwargs may pass weights_only
def load_with(path, **kwargs):
    return torch.load(path, **kwargs)
