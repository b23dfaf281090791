# tpf: target=t4
"""A frozen backbone and a trainable head, with Adam given every parameter (accelerate's cv_example.py pattern): Adam's state exists only for the head, the parameters that get a gradient."""
import torch
import torch.nn as nn
import torchvision
from torch.utils.data import DataLoader, TensorDataset

model = torchvision.models.resnet50()
for param in model.parameters():
    param.requires_grad = False
model.fc = nn.Linear(2048, 37)
optimizer = torch.optim.Adam(params=model.parameters(), lr=1e-4)
data = TensorDataset(torch.randn(256, 3, 224, 224), torch.randint(0, 37, (256,)))
for x, y in DataLoader(data, batch_size=64):
    loss = nn.functional.cross_entropy(model(x), y)
    loss.backward()
    optimizer.step()
    optimizer.zero_grad()
