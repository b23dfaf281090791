# tpf: target=t4 -- /data/mnist --batch-size 256 --hidden=512 --amp
# In the style of pytorch/examples mnist and imagenet: the run's command
# line (after `--` in the header) sets the batch size, the width and AMP;
# the dataset path is a required positional the estimate does not need.
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F


class Net(nn.Module):
    def __init__(self, hidden):
        super().__init__()
        self.fc1 = nn.Linear(784, hidden)
        self.fc2 = nn.Linear(hidden, hidden)
        self.fc3 = nn.Linear(hidden, 10)

    def forward(self, x):
        x = torch.flatten(x, 1)
        x = F.relu(self.fc1(x))
        x = F.relu(self.fc2(x))
        return F.log_softmax(self.fc3(x), dim=1)


def main():
    parser = argparse.ArgumentParser(description="PyTorch MNIST Example")
    parser.add_argument("data", metavar="DIR", help="path to dataset")
    parser.add_argument("-b", "--batch-size", type=int, default=64, metavar="N")
    parser.add_argument("--hidden", type=int, default=128)
    parser.add_argument("--epochs", type=int, default=14)
    parser.add_argument("--lr", type=float, default=1.0)
    parser.add_argument("--amp", action="store_true", default=False)
    args = parser.parse_args()
    device = torch.device("cuda")
    model = Net(args.hidden).to(device)
    optimizer = torch.optim.Adadelta(model.parameters(), lr=args.lr)
    scaler = torch.cuda.amp.GradScaler(enabled=args.amp)
    for epoch in range(1, args.epochs + 1):
        data = torch.randn(args.batch_size, 1, 28, 28, device=device)
        target = torch.randint(0, 10, (args.batch_size,), device=device)
        optimizer.zero_grad()
        with torch.autocast("cuda", dtype=torch.float16, enabled=args.amp):
            output = model(data)
            loss = F.nll_loss(output, target)
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()


if __name__ == "__main__":
    main()
