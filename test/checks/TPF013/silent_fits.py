# tpf: target=h100
# case: an MNIST MLP on an H100 fits easily
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
model = nn.Sequential(nn.Flatten(), nn.Linear(784, 512), nn.ReLU(), nn.Linear(512, 10)).cuda()
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
loss_fn = nn.CrossEntropyLoss()
ds = TensorDataset(torch.randn(6000, 1, 28, 28), torch.randint(0, 10, (6000,)))
loader = DataLoader(ds, batch_size=128, shuffle=True, num_workers=2, pin_memory=True)
for epoch in range(5):
    for x, y in loader:
        x, y = x.cuda(), y.cuda()
        opt.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        opt.step()
