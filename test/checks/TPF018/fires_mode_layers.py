# TPF018 fires: the same module-level script shape as silent_modeless.py, but
# each model has a layer train mode changes (or one the file cannot see), and
# the test loop runs without eval(). T.Normalize in the data pipeline does not
# hide them.
import torch
import torch.nn.functional as F
import torchvision
import torchvision.transforms as T
from torch import nn

to_input = T.Compose([T.ToTensor(), T.Normalize((0.5,), (0.5,))])
train_loader = torch.utils.data.DataLoader(torchvision.datasets.MNIST("data", transform=to_input))
test_loader = torch.utils.data.DataLoader(torchvision.datasets.MNIST("data", train=False))


class BnNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Conv2d(1, 8, 3), nn.BatchNorm2d(8), nn.ReLU())
        self.head = nn.LazyLinear(10)

    def forward(self, x):
        return self.head(self.body(x).flatten(1))


class FunctionalDrop(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(784, 10)

    def forward(self, x):
        return self.fc(F.dropout(x.flatten(1), 0.2, training=self.training))


# case: a Sequential with a Dropout
seq = nn.Sequential(nn.Flatten(), nn.Linear(784, 64), nn.Dropout(0.5), nn.Linear(64, 10))
opt_a = torch.optim.SGD(seq.parameters(), lr=0.1)
for x, y in train_loader:
    opt_a.zero_grad()
    F.cross_entropy(seq(x), y).backward()
    opt_a.step()
with torch.no_grad():
    for x, y in test_loader:
        print(seq(x).argmax(1).eq(y).sum().item())  # expect: TPF018

# case: the file's class holds a BatchNorm2d inside an nn.Sequential attribute
bn = BnNet()
opt_b = torch.optim.SGD(bn.parameters(), lr=0.1)
for x, y in train_loader:
    opt_b.zero_grad()
    F.cross_entropy(bn(x), y).backward()
    opt_b.step()
with torch.no_grad():
    for x, y in test_loader:
        print(bn(x).argmax(1).eq(y).sum().item())  # expect: TPF018

# case: functional dropout that follows self.training
fd = FunctionalDrop()
opt_c = torch.optim.SGD(fd.parameters(), lr=0.1)
for x, y in train_loader:
    opt_c.zero_grad()
    F.cross_entropy(fd(x), y).backward()
    opt_c.step()
with torch.no_grad():
    for x, y in test_loader:
        print(fd(x).argmax(1).eq(y).sum().item())  # expect: TPF018

# case: a multi-layer LSTM with dropout between its layers
lstm = nn.LSTM(28, 64, num_layers=2, dropout=0.3)
opt_d = torch.optim.Adam(lstm.parameters())
for x, y in train_loader:
    opt_d.zero_grad()
    lstm(x.squeeze(1))[0].mean().backward()
    opt_d.step()
with torch.no_grad():
    for x, y in test_loader:
        print(lstm(x.squeeze(1))[0].mean().item())  # expect: TPF018

# case: a torchvision model: its layers are not looked into, the finding stays
resnet = torchvision.models.resnet18(num_classes=10)
opt_e = torch.optim.SGD(resnet.parameters(), lr=0.1)
for x, y in train_loader:
    opt_e.zero_grad()
    F.cross_entropy(resnet(x.expand(-1, 3, -1, -1)), y).backward()
    opt_e.step()
with torch.no_grad():
    for x, y in test_loader:
        print(resnet(x.expand(-1, 3, -1, -1)).argmax(1).eq(y).sum().item())  # expect: TPF018
