# TPF010 partial_seeding: a seeding helper that covers torch only while the
# script shuffles with random.
import random

import torch
import torch.nn.functional as F


# case: a renamed helper seeds torch only; random.shuffle of the sample list
def set_determinism(seed):
    torch.manual_seed(seed)  # expect: TPF010
    torch.cuda.manual_seed_all(seed)
    torch.backends.cudnn.deterministic = True


def run(model, samples, optimizer, seed=0):
    set_determinism(seed)
    for epoch in range(5):
        random.shuffle(samples)
        for x, y in samples:
            optimizer.zero_grad()
            F.l1_loss(model(x), y).backward()
            optimizer.step()


if __name__ == "__main__":
    import sys
    sys.exit(0)
