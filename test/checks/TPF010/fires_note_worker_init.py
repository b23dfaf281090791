# TPF010 partial_seeding: numpy seeded only inside DataLoader workers
# (`worker_init_fn`), once per worker for augmentations that differ across
# them. That seeds no generator of the run: the note says nothing is seeded,
# not that numpy is.
import argparse

import numpy as np
import torch
from torch.utils.data import DataLoader


def reseed_worker(worker_id):
    np.random.seed(1000 + worker_id)


# case: a lambda and a named function handed to two loaders
def main():
    args = argparse.ArgumentParser().parse_args()
    crops = DataLoader(args.train_set, batch_size=16, num_workers=4,
                       worker_init_fn=lambda k: np.random.seed(k))
    masks = DataLoader(args.mask_set, batch_size=16, num_workers=2, worker_init_fn=reseed_worker)
    net = torch.nn.Conv2d(3, 1, 3)
    opt = torch.optim.SGD(net.parameters(), lr=0.01)
    for (img, depth), mask in zip(crops, masks):
        opt.zero_grad()
        ((net(img) - depth).abs() * mask).mean().backward()  # expect: TPF010
        opt.step()


if __name__ == "__main__":
    main()
