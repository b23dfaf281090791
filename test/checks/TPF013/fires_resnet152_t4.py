# tpf: target=t4
# case: torchvision resnet152 at 224x224 with batch 256 and SGD momentum on a T4
import torch
import torch.nn as nn
import torchvision
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
model = torchvision.models.resnet152(num_classes=1000).cuda()
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, weight_decay=1e-4)
images = torch.randn(1024, 3, 224, 224)
labels = torch.randint(0, 1000, (1024,))
train_loader = DataLoader(TensorDataset(images, labels), batch_size=256, shuffle=True,
                          num_workers=8, pin_memory=True)

for epoch in range(90):
    model.train()
    for x, y in train_loader:
        x, y = x.cuda(non_blocking=True), y.cuda(non_blocking=True)
        loss = criterion(model(x), y)
        optimizer.zero_grad()
        loss.backward()  # expect: TPF013
        optimizer.step()
