# TPF005 must stay silent: a test suite's helper (this file is a
# `*_test.py` module, never run as a program) trains an FSDP model and a
# control model on the same seeded batches on every rank, on purpose, and
# compares their weights.
import torch
import torch.nn as nn
from torch.distributed.fsdp import FullyShardedDataParallel as FSDP


def train_steps(model, steps=5):
    torch.manual_seed(42)
    data = torch.utils.data.TensorDataset(torch.randn(steps, 16), torch.randn(steps, 1))
    loader = torch.utils.data.DataLoader(data, batch_size=1, shuffle=True)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for x, y in loader:
        opt.zero_grad()
        nn.functional.mse_loss(model(x), y).backward()
        opt.step()
    return model


def check_sharded_matches_control():
    torch.manual_seed(0)
    control = nn.Linear(16, 1)
    sharded = FSDP(nn.Linear(16, 1))
    sharded.load_state_dict(control.state_dict())
    a = train_steps(control)
    b = train_steps(sharded)
    assert torch.allclose(a.weight, b.weight)
