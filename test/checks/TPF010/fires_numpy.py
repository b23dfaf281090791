# TPF010 partial_seeding: torch is seeded, numpy shuffles the data unseeded.
import numpy as np
import torch
import torch.nn.functional as F


# case: torch.manual_seed only, np.random.permutation for the split
def main(model, x, y, optimizer, epochs=3):
    torch.manual_seed(1234)  # expect: TPF010
    idx = np.random.permutation(len(x))
    x, y = x[idx], y[idx]
    for epoch in range(epochs):
        for i in range(0, len(x), 32):
            optimizer.zero_grad()
            F.mse_loss(model(x[i:i + 32]), y[i:i + 32]).backward()
            optimizer.step()


if __name__ == "__main__":
    import sys
    sys.exit(0)
