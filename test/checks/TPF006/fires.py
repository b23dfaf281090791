# TPF006 softmax_before_cross_entropy: probabilities where logits belong.
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.nn import CrossEntropyLoss


# case: the model's forward ends in F.softmax
class MLP(nn.Module):
    def __init__(self, d_in, n_classes):
        super().__init__()
        self.fc1 = nn.Linear(d_in, 256)
        self.fc2 = nn.Linear(256, n_classes)

    def forward(self, x):
        x = F.relu(self.fc1(x))
        return F.softmax(self.fc2(x), dim=1)  # expect: TPF006


def train_mlp(loader, optimizer):
    model = MLP(784, 10)
    criterion = nn.CrossEntropyLoss()
    for x, y in loader:
        optimizer.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()


# case: nn.Sequential whose last layer is nn.Softmax
def build_classifier(n_features, n_classes):
    return nn.Sequential(
        nn.Linear(n_features, 64),
        nn.ReLU(),
        nn.Linear(64, n_classes),
        nn.Softmax(dim=1),  # expect: TPF006
    )


def train_sequential(loader, opt, n_features=32, n_classes=4):
    clf = build_classifier(n_features, n_classes)
    for xb, yb in loader:
        opt.zero_grad()
        F.cross_entropy(clf(xb), yb).backward()
        opt.step()


def train_inline_sequential(loader, opt):
    clf = nn.Sequential(nn.Flatten(), nn.Linear(784, 10), nn.Softmax(dim=-1))  # expect: TPF006
    criterion = nn.CrossEntropyLoss()
    for xb, yb in loader:
        opt.zero_grad()
        criterion(clf(xb), yb).backward()
        opt.step()


# case: softmax as a method call just before the loss
def step_softmax_method(model, batch, criterion):
    logits = model(batch["pixel_values"])
    probs = logits.softmax(dim=-1)  # expect: TPF006
    return F.cross_entropy(probs, batch["labels"])


# case: a softmax module stored on self and applied last
class ConvNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(3, 16, 3), nn.ReLU(), nn.AdaptiveAvgPool2d(1))
        self.head = nn.Linear(16, 10)
        self.softmax = nn.Softmax(dim=1)

    def forward(self, x):
        x = self.features(x).flatten(1)
        return self.softmax(self.head(x))  # expect: TPF006


def evaluate_convnet(images, labels):
    net = ConvNet()
    loss_fn = nn.CrossEntropyLoss(label_smoothing=0.1)
    return loss_fn(net(images), labels)


# case: a tuple return, the probabilities taken by unpacking
class TwoHeads(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Linear(128, 64)
        self.cls = nn.Linear(64, 5)

    def forward(self, x):
        h = torch.relu(self.body(x))
        return torch.softmax(self.cls(h), dim=-1), h  # expect: TPF006


def two_heads_loss(x, y):
    model = TwoHeads()
    probs, _ = model(x)
    return nn.CrossEntropyLoss()(probs, y)


# case: transformers-style loss on flattened probabilities
def lm_loss(logits, labels, vocab_size):
    probs = torch.softmax(logits, dim=-1)  # expect: TPF006
    loss_fct = CrossEntropyLoss()
    return loss_fct(probs.view(-1, vocab_size), labels.view(-1))


# case: softmax probabilities into NLLLoss, which wants log-probabilities
def nll_on_probs(model, x, y):
    out = F.softmax(model(x), dim=1)  # expect: TPF006
    return F.nll_loss(out, y)


# case: log_softmax before CrossEntropyLoss (a warning: the loss is unchanged)
def double_log_softmax(model, x, y):
    log_probs = F.log_softmax(model(x), dim=-1)  # expect: TPF006
    return nn.CrossEntropyLoss()(log_probs, y)
