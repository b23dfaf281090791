# TPF018 silent: a tutorial-style script, all at module level, whose models
# have no layer that train mode changes. eval() before the test loops would
# change nothing, so no finding, even though the data pipeline says
# "Normalize" (a torchvision transform, not a norm layer).
import torch
import torch.nn.functional as F
import torchvision
import torchvision.transforms as T
from torch import nn

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
to_input = T.Compose([T.ToTensor(), T.Normalize((0.1307,), (0.3081,))])
train_set = torchvision.datasets.MNIST("data", train=True, transform=to_input)
test_set = torchvision.datasets.MNIST("data", train=False, transform=to_input)
train_loader = torch.utils.data.DataLoader(train_set, batch_size=64, shuffle=True, num_workers=2, pin_memory=True)
test_loader = torch.utils.data.DataLoader(test_set, batch_size=256, num_workers=2, pin_memory=True)


class ConvNet(nn.Module):
    """conv, pool, linear: nothing mode-dependent; LayerNorm uses no batch statistics"""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(1, 8, 3)
        self.pool = nn.MaxPool2d(2)
        self.norm = nn.LayerNorm(8 * 13 * 13)
        self.head = nn.Linear(8 * 13 * 13, 10)

    def forward(self, x):
        x = self.pool(F.relu(self.conv(x))).flatten(1)
        return self.head(self.norm(x))


# case: logistic regression, a bare nn.Linear, tested without eval()
logreg = nn.Linear(784, 10)
sgd = torch.optim.SGD(logreg.parameters(), lr=1e-3)
for images, labels in train_loader:
    sgd.zero_grad()
    F.cross_entropy(logreg(images.reshape(-1, 784)), labels).backward()
    sgd.step()
with torch.no_grad():
    for images, labels in test_loader:
        print((logreg(images.reshape(-1, 784)).argmax(1) == labels).sum().item())

# case: an nn.Sequential of linear layers and activations, moved to the GPU
mlp = nn.Sequential(nn.Flatten(), nn.Linear(784, 128), nn.ReLU(), nn.Linear(128, 10)).to(device)
adam = torch.optim.Adam(mlp.parameters())
for images, labels in train_loader:
    adam.zero_grad()
    F.cross_entropy(mlp(images.to(device)), labels.to(device)).backward()
    adam.step()
with torch.no_grad():
    for images, labels in test_loader:
        print(F.cross_entropy(mlp(images.to(device)), labels.to(device)).item())

# case: the file's own conv net, in a file that also uses T.Normalize
convnet = ConvNet().to(device)
momentum = torch.optim.SGD(convnet.parameters(), lr=0.01, momentum=0.9)
for images, labels in train_loader:
    momentum.zero_grad()
    F.cross_entropy(convnet(images.to(device)), labels.to(device)).backward()
    momentum.step()
with torch.no_grad():
    for images, labels in test_loader:
        print(convnet(images.to(device)).argmax(1).eq(labels.to(device)).sum().item())

# case: an LSTM with its default dropout=0, and InstanceNorm without running stats
rnn = nn.LSTM(28, 64, batch_first=True)
inorm = nn.Sequential(nn.InstanceNorm1d(28), nn.Linear(28, 10))
rms = torch.optim.RMSprop(list(rnn.parameters()) + list(inorm.parameters()))
for images, labels in train_loader:
    rms.zero_grad()
    seq, _ = rnn(images.squeeze(1))
    (seq.mean() + inorm(images.squeeze(1)).mean()).backward()
    rms.step()
with torch.no_grad():
    for images, labels in test_loader:
        print(rnn(images.squeeze(1))[0].mean().item(), inorm(images.squeeze(1)).mean().item())
