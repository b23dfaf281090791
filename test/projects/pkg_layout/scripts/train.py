import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))

import torch
from torch.utils.data import DataLoader, TensorDataset

from diffuse import UNetLite
from diffuse.trainer import Trainer
import helpers

try:
    from diffuse.fast_kernels import fused_adam  # optional, not in this project
except ImportError:
    fused_adam = None

import importlib

plugin = importlib.import_module(os.environ.get("PLUGIN", "diffuse.nets"))

torch.manual_seed(0)
helpers.seed_all(0)
model = UNetLite(channels=32)
data = TensorDataset(torch.randn(256, 3, 32, 32))
loader = DataLoader(data, batch_size=16)
Trainer(model, lr=1e-3).run(loader)
