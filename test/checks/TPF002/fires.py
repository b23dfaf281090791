# TPF002 inference_without_no_grad: evaluation loops that record autograd for nothing.
import argparse

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset
from tqdm import tqdm


class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 4))

    def forward(self, x):
        return self.net(x)


# case: a validation helper that calls eval() but forgets no_grad
def validate(model, loader, device):
    model.eval()
    correct = 0
    for x, y in loader:
        x, y = x.to(device), y.to(device)
        logits = model(x)  # expect: TPF002
        correct += (logits.argmax(1) == y).sum().item()
    return correct / len(loader.dataset)


# case: inference at module level over a DataLoader, with tqdm
data = TensorDataset(torch.randn(256, 32), torch.randint(0, 4, (256,)))
test_loader = DataLoader(data, batch_size=64, num_workers=2, pin_memory=True)
clf = Classifier()
clf.eval()
hits = 0
for xb, yb in tqdm(test_loader, desc="test"):
    hits += (clf(xb).argmax(dim=1) == yb).sum().item()  # expect: TPF002


# case: renamed variables, the loss is computed and only logged
def measure(net, batches, criterion):
    net.eval()
    total = 0.0
    for i, (inputs, targets) in enumerate(batches):
        inputs = inputs.cuda(non_blocking=True)
        out = net(inputs)  # expect: TPF002
        total += criterion(out, targets.cuda()).item()
    net.train()
    return total / (i + 1)


# case: an evaluation loop inside the epoch loop, after the training loop
def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=3)
    args = parser.parse_args()
    torch.manual_seed(0)
    model = Classifier()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    loss_fn = nn.CrossEntropyLoss()
    train_loader = DataLoader(data, batch_size=32, shuffle=True, num_workers=2, pin_memory=True)
    val_loader = DataLoader(data, batch_size=128, num_workers=2, pin_memory=True)
    for epoch in range(args.epochs):
        model.train()
        for x, y in train_loader:
            opt.zero_grad()
            loss_fn(model(x), y).backward()
            opt.step()
        model.eval()
        val_loss = torch.zeros(())
        for x, y in val_loader:
            val_loss += loss_fn(model(x), y).detach()  # expect: TPF002
        print(epoch, val_loss.item(), validate(model, val_loader, "cpu"),
              measure(model, val_loader, loss_fn))


if __name__ == "__main__":
    main()
