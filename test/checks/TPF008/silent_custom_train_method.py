# TPF008 stays silent when the training helper puts the trained part back
# in train mode through a method of the model's own class
# (`clf.train_head()`, which freezes the backbone and calls
# `self.head.train()`), although the helper only sees the model as a
# parameter.
import torch
from torch import nn


class Classifier(nn.Module):
    def __init__(self, backbone):
        super().__init__()
        self.backbone = backbone
        self.head = nn.Sequential(nn.Dropout(0.2), nn.Linear(32, 2))

    def train_head(self):
        for p in self.backbone.parameters():
            p.requires_grad = False
        self.head.train()

    def forward(self, x):
        return self.head(self.backbone(x).mean(1))


def one_epoch(clf, opt, batches):
    clf.train_head()
    for x, y in batches:
        opt.zero_grad()
        nn.functional.cross_entropy(clf(x), y).backward()
        opt.step()


def measure(clf, batches):
    clf.eval()
    with torch.no_grad():
        return sum((clf(x).argmax(-1) == y).sum().item() for x, y in batches)


def run(backbone, train_batches, test_batches, epochs):
    clf = Classifier(backbone)
    opt = torch.optim.Adam(clf.head.parameters())
    for epoch in range(epochs):
        one_epoch(clf, opt, train_batches)
        print(measure(clf, test_batches))
