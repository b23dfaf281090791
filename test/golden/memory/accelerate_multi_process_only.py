# tpf: target=h100 world-size=2
"""A check that only means something with two processes or more: it trains under
`if accelerator.num_processes > 1:` and does nothing on one GPU. `num_processes` is the run's
world size (here `--world-size 2`, as `torch.distributed.get_world_size()` gives it), so the
two-process run is the one estimated. torch 1.13 counts 2 x (32*32+32) = 2,112 parameters."""
import torch
from accelerate import Accelerator
from torch.utils.data import DataLoader, TensorDataset


class Pair(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.a = torch.nn.Linear(32, 32)
        self.b = torch.nn.Linear(32, 32)

    def forward(self, x):
        return self.b(torch.tanh(self.a(x)))


def train_briefly(accelerator, model):
    data = TensorDataset(torch.randn(512, 32), torch.randn(512, 32))
    loader = DataLoader(data, batch_size=64)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    loader, model, optimizer = accelerator.prepare(loader, model, optimizer)
    for x, y in loader:
        optimizer.zero_grad()
        accelerator.backward(torch.nn.functional.mse_loss(model(x), y))
        optimizer.step()
    return model


if __name__ == "__main__":
    accelerator = Accelerator()
    model = Pair()
    if accelerator.num_processes > 1:
        model = train_briefly(accelerator, model)
        accelerator.wait_for_everyone()
    accelerator.end_training()
