# TPF003 at module level: a script with argparse and the loop at top level.
import argparse

import torch
import torch.nn as nn

parser = argparse.ArgumentParser()
parser.add_argument("--lr", type=float, default=0.01)
parser.add_argument("--epochs", type=int, default=5)
args = parser.parse_args()
torch.manual_seed(0)

# case: top-level script, zero_grad forgotten
model = nn.Sequential(nn.Linear(784, 128), nn.ReLU(), nn.Linear(128, 10))
optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9)
criterion = nn.CrossEntropyLoss()
loader = torch.utils.data.DataLoader(dataset, batch_size=64, shuffle=True)

for epoch in range(args.epochs):
    running = 0.0
    for i, (inputs, labels) in enumerate(loader):
        outputs = model(inputs.view(inputs.size(0), -1))
        loss = criterion(outputs, labels)
        loss.backward()  # expect: TPF003
        optimizer.step()
        running += loss.item()
    print(f"epoch {epoch}: {running / len(loader):.3f}")
