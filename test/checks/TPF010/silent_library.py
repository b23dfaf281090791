# TPF010 partial_seeding: library code with randomness but no training loop.
import random

import numpy as np
import torch


# case: a data-augmentation module
class RandomCrop:
    def __init__(self, size):
        self.size = size

    def __call__(self, img):
        h, w = img.shape[-2:]
        top = random.randint(0, h - self.size)
        left = np.random.randint(0, w - self.size)
        return img[..., top:top + self.size, left:left + self.size] + torch.randn(1) * 0.0
