# tpf: target=a100
"""An image classifier trained under accelerate's find_executable_batch_size: the inner loop gets
its batch size from the decorator (starting_batch_size, halved after an OOM). The estimate is at
the first try, 256, and the report says the decorator would retry smaller."""
import torch
import torch.nn as nn
import torch.nn.functional as F
from accelerate import Accelerator
from accelerate.utils import find_executable_batch_size
from torch.utils.data import DataLoader
from torchvision import datasets, transforms


def make_net(width=64):
    return nn.Sequential(
        nn.Conv2d(3, width, 3, padding=1), nn.BatchNorm2d(width), nn.ReLU(),
        nn.Conv2d(width, 2 * width, 3, padding=1, stride=2), nn.BatchNorm2d(2 * width), nn.ReLU(),
        nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(2 * width, 10),
    )


def main():
    accelerator = Accelerator()
    train_set = datasets.CIFAR10("data", train=True, download=True, transform=transforms.ToTensor())

    @find_executable_batch_size(starting_batch_size=256)
    def inner_loop(batch_size):
        nonlocal accelerator
        accelerator.free_memory()
        net = make_net()
        opt = torch.optim.SGD(net.parameters(), lr=0.1, momentum=0.9)
        loader = DataLoader(train_set, batch_size=batch_size, shuffle=True, num_workers=4)
        net, opt, loader = accelerator.prepare(net, opt, loader)
        for images, labels in loader:
            loss = F.cross_entropy(net(images), labels)
            accelerator.backward(loss)
            opt.step()
            opt.zero_grad()

    inner_loop()


if __name__ == "__main__":
    main()
