# TPF007 bce_activation_mismatch: sigmoid twice, or logits where BCELoss wants probabilities.
import torch
import torch.nn as nn
import torch.nn.functional as F


# case: sigmoid right before BCEWithLogitsLoss
def train_binary(model, loader, optimizer):
    criterion = nn.BCEWithLogitsLoss()
    for x, y in loader:
        optimizer.zero_grad()
        probs = torch.sigmoid(model(x))  # expect: TPF007
        loss = criterion(probs, y.float())
        loss.backward()
        optimizer.step()


# case: the forward ends in a sigmoid, the loss module lives on self
class Detector(nn.Module):
    def __init__(self, pos_weight):
        super().__init__()
        self.backbone = nn.Sequential(nn.Conv2d(3, 32, 3), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten())
        self.fc = nn.Linear(32, 1)
        self.criterion = nn.BCEWithLogitsLoss(pos_weight=pos_weight)

    def forward(self, x):
        return torch.sigmoid(self.fc(self.backbone(x)))  # expect: TPF007

    def training_step(self, batch, batch_idx):
        images, targets = batch
        return self.criterion(self(images).squeeze(1), targets)


# case: nn.Sequential ending in nn.Sigmoid, functional loss with logits
def sequential_sigmoid(x, y):
    head = nn.Sequential(
        nn.Linear(16, 8),
        nn.ReLU(),
        nn.Linear(8, 1),
        nn.Sigmoid(),  # expect: TPF007
    )
    return F.binary_cross_entropy_with_logits(head(x).squeeze(-1), y)


# case: the method form of sigmoid
def multilabel_loss(logits, targets):
    return F.binary_cross_entropy_with_logits(logits.sigmoid(), targets)  # expect: TPF007


# case: BCELoss on the raw output of a linear layer
class Scorer(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.hidden = nn.Linear(d, 64)
        self.out = nn.Linear(64, 1)

    def forward(self, x):
        return self.out(F.relu(self.hidden(x)))


def train_scorer(loader, optimizer):
    model = Scorer(20)
    loss_fn = nn.BCELoss()
    for x, y in loader:
        optimizer.zero_grad()
        loss = loss_fn(model(x).view(-1), y)  # expect: TPF007
        loss.backward()
        optimizer.step()


# case: functional BCE on logits inside a module method
class Discriminator(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(784, 256), nn.LeakyReLU(0.2), nn.Linear(256, 1))

    def loss(self, x, real):
        scores = self.net(x)
        target = torch.ones_like(scores) if real else torch.zeros_like(scores)
        return F.binary_cross_entropy(scores, target)  # expect: TPF007
