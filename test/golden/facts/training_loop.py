# tpf: facts=grad,calls,summaries
# A training script: the loss carries a graph until .item(); evaluation runs
# under no_grad; the helper's effects show in the caller's summary.
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader


class MLP(nn.Module):
    def __init__(self, d_in, d_out):
        super().__init__()
        self.fc1 = nn.Linear(d_in, 128)
        self.fc2 = nn.Linear(128, d_out)

    def forward(self, x):
        return self.fc2(F.relu(self.fc1(x)))


def train_step(model, opt, x, y):
    opt.zero_grad()
    loss = F.cross_entropy(model(x), y)
    loss.backward()
    opt.step()
    return loss.item()


@torch.no_grad()
def evaluate(model, loader):
    correct = 0
    for x, y in loader:
        pred = model(x).argmax(dim=1)
        correct += (pred == y).sum()
    return correct


model = MLP(784, 10)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
loader = DataLoader([], batch_size=32)
history = []
for epoch in range(3):
    for x, y in loader:
        history.append(train_step(model, opt, x, y))
    acc = evaluate(model, loader)
