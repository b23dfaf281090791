# TPF006 must fire: the model and the criterion reach the training helper
# as parameters; the criterion is built by a factory of the file.
import torch
import torch.nn as nn


class Classifier(nn.Module):
    def __init__(self, d, k):
        super().__init__()
        self.proj = nn.Linear(d, k)

    def forward(self, feats):
        return self.proj(feats).softmax(dim=-1)  # expect: TPF006


def build_loss(smoothing):
    return nn.CrossEntropyLoss(label_smoothing=smoothing)


def run_epoch(net, loss_fn, opt, batches):
    for feats, labels in batches:
        opt.zero_grad()
        loss_fn(net(feats), labels).backward()
        opt.step()


def main(batches, epochs=3):
    torch.manual_seed(0)
    net = Classifier(128, 10)
    opt = torch.optim.AdamW(net.parameters(), lr=3e-4)
    loss_fn = build_loss(0.1)
    for _ in range(epochs):
        run_epoch(net, loss_fn, opt, batches)
