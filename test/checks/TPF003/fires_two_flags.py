# TPF003 must fire: the two clears test different flags; with
# `--clear-early` off and `--clear-late` off no iteration clears.
import argparse

import torch
import torch.nn.functional as F


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--clear-early", action="store_true")
    parser.add_argument("--clear-late", action="store_true")
    args = parser.parse_args()
    torch.manual_seed(0)
    model = torch.nn.Linear(8, 1)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    data = [(torch.randn(4, 8), torch.randn(4, 1)) for _ in range(10)]
    for x, y in data:
        if args.clear_early:
            opt.zero_grad()
        loss = F.mse_loss(model(x), y)
        if args.clear_late:
            opt.zero_grad()
        loss.backward()  # expect: TPF003
        opt.step()


if __name__ == "__main__":
    main()
