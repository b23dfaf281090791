# tpf: target=h100
"""Greedy layer-wise training: each layer subclasses nn.Linear, makes its own optimizer in its
`__init__` (`self.optimizer = SGD(self.parameters())`) and overrides `train` to fit itself on the
outputs of the layer before. A plain list holds the layers, so each optimizer lives only through
its layer: it is not retired when `__init__` returns. The forward normalizes by
`x.norm(2, 1, keepdim=True)` and `torch.linalg.norm(x, 2, -1, True)`, whose dim comes after the
order. torch 1.13 counts 1,082,688 parameters in the three layers (784*1024+1024 + 1024*256+256 +
256*64+64)."""
import torch
import torch.nn as nn


class LocalLayer(nn.Linear):
    def __init__(self, n_in, n_out, lr=0.01):
        super().__init__(n_in, n_out, bias=True)
        self.act = nn.ReLU()
        self.optimizer = torch.optim.SGD(self.parameters(), lr=lr, momentum=0.9)

    def forward(self, x):
        x = x / (x.norm(2, 1, keepdim=True) + 1e-6)
        h = self.act(x @ self.weight.t() + self.bias)
        return h / torch.linalg.norm(h, 2, -1, True).clamp(min=1e-6)

    def train(self, x, epochs=5):
        for _ in range(epochs):
            h = self.forward(x)
            loss = (h.pow(2).sum(1) - 1.0).abs().mean()
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()
        return self.forward(x).detach()


class Stack:
    def __init__(self, widths, device):
        self.layers = [LocalLayer(a, b).to(device) for a, b in zip(widths, widths[1:])]

    def fit(self, x):
        for layer in self.layers:
            x = layer.train(x)


if __name__ == "__main__":
    device = torch.device("cuda")
    stack = Stack([784, 1024, 256, 64], device)
    stack.fit(torch.rand(4096, 784, device=device))
