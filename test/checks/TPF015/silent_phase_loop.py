# TPF015 must stay silent: each epoch loops over its phases, training then
# validation, and the batch loop sits inside that phase loop. A scheduler
# stepped in the phase loop (under the phase test) runs once per epoch; the
# phase loop is no batch loop.
import random

import numpy as np
import torch
import torch.nn as nn
import torchvision
from torch.utils.data import DataLoader
from torchvision import datasets, transforms

random.seed(0)
np.random.seed(0)
torch.manual_seed(0)
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
augment = {
    "train": transforms.Compose([transforms.RandomResizedCrop(224), transforms.ToTensor()]),
    "val": transforms.Compose([transforms.Resize(256), transforms.CenterCrop(224), transforms.ToTensor()]),
}
folders = {split: datasets.ImageFolder(f"images/{split}", augment[split]) for split in ("train", "val")}
batches = {
    split: DataLoader(folders[split], batch_size=8, shuffle=split == "train", num_workers=4, pin_memory=True)
    for split in ("train", "val")
}

# case: fine-tuning script: StepLR stepped once per epoch, in the train phase
backbone = torchvision.models.resnet18(weights="IMAGENET1K_V1")
backbone.fc = nn.Linear(backbone.fc.in_features, 2)
backbone = backbone.to(device)
loss_fn = nn.CrossEntropyLoss()
opt = torch.optim.SGD(backbone.parameters(), lr=0.001, momentum=0.9)
decay = torch.optim.lr_scheduler.StepLR(opt, step_size=7, gamma=0.1)
for epoch in range(25):
    for phase in ["train", "val"]:
        if phase == "train":
            backbone.train()
        else:
            backbone.eval()
        loss_sum, hits = 0.0, 0
        for images, labels in batches[phase]:
            images, labels = images.to(device), labels.to(device)
            opt.zero_grad()
            with torch.set_grad_enabled(phase == "train"):
                scores = backbone(images)
                loss = loss_fn(scores, labels)
                if phase == "train":
                    loss.backward()
                    opt.step()
            loss_sum += loss.detach() * images.size(0)
            hits += (scores.argmax(1) == labels).sum()
        if phase == "train":
            decay.step()
        print(phase, (loss_sum / len(folders[phase])).item(), (hits / len(folders[phase])).item())


# case: the plateau schedule reads the validation loss once per epoch
def tune_head(head, epochs):
    head = head.to(device)
    head_opt = torch.optim.Adam(head.parameters(), lr=1e-3)
    plateau = torch.optim.lr_scheduler.ReduceLROnPlateau(head_opt, patience=2)
    for epoch in range(epochs):
        for mode in ("fit", "check"):
            head.train(mode == "fit")
            total = torch.zeros((), device=device)
            loader = batches["train" if mode == "fit" else "val"]
            for images, labels in loader:
                with torch.set_grad_enabled(mode == "fit"):
                    loss = nn.functional.cross_entropy(head(images.to(device)), labels.to(device))
                if mode == "fit":
                    head_opt.zero_grad(set_to_none=True)
                    loss.backward()
                    head_opt.step()
                total += loss.detach()
            if mode == "check":
                plateau.step(total.item())
