# TPF022 backward_without_graph: a script at module level freezes the whole
# pretrained model, then trains it.
import torch
import torch.nn as nn
import torchvision
from torch.utils.data import DataLoader

torch.manual_seed(0)
train_set = torchvision.datasets.CIFAR10("data", train=True, download=True)
loader = DataLoader(train_set, batch_size=64, shuffle=True, num_workers=4, pin_memory=True)

# case: requires_grad_(False) on the model the optimizer then holds
model = torchvision.models.vgg16(weights="DEFAULT").cuda()
model.requires_grad_(False)
model.eval()
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)  # expect: TPF022
criterion = nn.CrossEntropyLoss()
for epoch in range(10):
    model.train()
    for inputs, targets in loader:
        optimizer.zero_grad()
        inputs = inputs.cuda().requires_grad_()  # an input gradient: not a parameter
        loss = criterion(model(inputs), targets.cuda())
        loss.backward()
        optimizer.step()
