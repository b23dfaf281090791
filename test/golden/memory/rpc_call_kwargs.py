# tpf: target=h100
"""RPC with keyword arguments: the trainer's loop runs inside `rpc.rpc_sync(owner, fn,
args=(...), kwargs={...})`, through a helper that forwards its own `**kwargs` (pytorch/examples
distributed/rpc's `_remote_method`). The estimate runs `fn` here with those keywords, as the
worker would; before, any `kwargs=` dict left the call unknown. torch 1.13 counts 1,201,290
parameters (784*1024+1024 + 1024*384+384 + 384*10+10)."""
import torch
import torch.distributed.rpc as rpc
import torch.nn as nn
import torch.nn.functional as F
from torch.distributed.rpc import RRef


class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(784, 1024), nn.ReLU(), nn.Linear(1024, 384), nn.ReLU())
        self.head = nn.Linear(384, 10)

    def forward(self, x):
        return self.head(self.body(x))


class Trainer:
    def __init__(self):
        self.model = Classifier().cuda()
        self.optimizer = torch.optim.SGD(self.model.parameters(), lr=0.05, momentum=0.9)

    def train(self, steps, batch_size=32):
        for _ in range(steps):
            x = torch.randn(batch_size, 784, device="cuda")
            y = torch.randint(0, 10, (batch_size,), device="cuda")
            loss = F.cross_entropy(self.model(x), y)
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()
        return loss.item()


def _call_method(method, rref, *args, **kwargs):
    return method(rref.local_value(), *args, **kwargs)


def remote_method(method, rref, *args, **kwargs):
    return rpc.rpc_sync(rref.owner(), _call_method, args=[method, rref] + list(args), kwargs=kwargs)


if __name__ == "__main__":
    rpc.init_rpc("trainer", rank=0, world_size=1)
    trainer = RRef(Trainer())
    remote_method(Trainer.train, trainer, 100, batch_size=512)
    rpc.shutdown()
