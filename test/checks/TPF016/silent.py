# TPF016 must stay silent: moves that work, and values that are not known tensors.
import torch
import torch.nn as nn
from torch.utils.data import DataLoader


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 2)

    def forward(self, x):
        return self.fc(x)

    def to_device(self, device):
        self.to(device)
        return self


# case: modules move in place: a local nn.Module, a layer, self
def setup(device):
    model = Net()
    model.to(device)
    head = nn.Linear(2, 2)
    head.cuda()
    model.half()
    return model, head


# case: the result is assigned
def train(model, dataset, device):
    loader = DataLoader(dataset, batch_size=32)
    for x, y in loader:
        x = x.to(device)
        y = y.to(device)
        model(x)


# case: a custom collate_fn may yield objects that move in place
def graphs(model, dataset, collate, device):
    loader = DataLoader(dataset, batch_size=32, collate_fn=collate)
    for batch in loader:
        batch.to(device)
        model(batch)


# case: an unknown receiver: a parameter, a tokenizer's BatchEncoding
def step(model, inputs, tokenizer, texts, device):
    inputs.to(device)
    enc = tokenizer(texts, return_tensors="pt")
    enc.to(device)
    return model(inputs, **enc)


# case: CUDA initialization and a sync point: the tensor is not used again
def warm_up():
    torch.zeros(1).cuda()
    t = torch.ones(8)
    t.cuda()
    out = nn.Linear(8, 8)(torch.ones(8))
    out.cpu()


# case: a tensor reassigned before the next use
def cast(model):
    x = torch.randn(4, 4)
    x.half()
    x = torch.randn(4, 4).half()
    return model(x)
