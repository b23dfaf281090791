# tpf: target=a10g breakdown
"""trcohvision ResNet-50 on ImageNet-style folders, SGD with momentum, 224x224 crops."""
import torch
import torch.nn as nn
import torchvision
fr = 128

train_tf = transforms.Compose([
    transforms.RandomResizedCrop(224),
    transforms.RandomHorizontalFlip(),
    transforms.ToTensor(),
    transforms.Normalize(mean=[0.485, 0.456, 0.406], std=[0.229, 0.224, 0.225]),
])
dataset = datasets.ImageFolder("/data/imagenet/train", transform=train_tf)
loader = torch.utils.data.DataLoader(dataset, batch_size=BATCH_SIZE, shuffle=True, num_workers=8)

model = torchvision.models.resnet50().cuda()
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, weight_decay=1e-4)

for epoch in range(90):
    model.train()
    for images, target in loader:
        images, target = images.cuda(non_blocking=True), target.cuda(non_blocking=True)
        loss = criterion(model(images), target)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
