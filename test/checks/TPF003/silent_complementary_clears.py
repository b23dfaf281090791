# TPF003 must stay silent: the gradients are cleared either before the
# forward or right before the backward, chosen once by a flag; whichever
# way the flag is set, every iteration clears once.
import argparse

import torch
import torch.nn.functional as F


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--clear-early", action="store_true")
    args = parser.parse_args()
    torch.manual_seed(0)
    model = torch.nn.Linear(8, 1)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    data = [(torch.randn(4, 8), torch.randn(4, 1)) for _ in range(10)]
    for x, y in data:
        if args.clear_early:
            opt.zero_grad()
        loss = F.mse_loss(model(x), y)
        if not args.clear_early:
            opt.zero_grad()
        loss.backward()
        opt.step()


if __name__ == "__main__":
    main()
