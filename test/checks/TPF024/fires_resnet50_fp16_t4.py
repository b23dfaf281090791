# tpf: target=t4
# case: torchvision resnet50 in fp16 autocast with a GradScaler, inside a train() helper, batch 280
import torch
import torch.nn as nn
import torchvision
from torch.utils.data import DataLoader, TensorDataset


def train(model, loader, opt, scaler, crit):
    model.train()
    for images, labels in loader:
        images, labels = images.cuda(non_blocking=True), labels.cuda(non_blocking=True)
        with torch.autocast("cuda", dtype=torch.float16):
            loss = crit(model(images), labels)
        opt.zero_grad(set_to_none=True)
        scaler.scale(loss).backward()  # expect: TPF024
        scaler.step(opt)
        scaler.update()


def main():
    torch.manual_seed(0)
    model = torchvision.models.resnet50(num_classes=1000).cuda()
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, weight_decay=1e-4)
    scaler = torch.cuda.amp.GradScaler()
    ds = TensorDataset(torch.randn(1024, 3, 224, 224), torch.randint(0, 1000, (1024,)))
    loader = DataLoader(ds, batch_size=280, shuffle=True, num_workers=8, pin_memory=True)
    for epoch in range(90):
        train(model, loader, opt, scaler, nn.CrossEntropyLoss())


if __name__ == "__main__":
    main()
