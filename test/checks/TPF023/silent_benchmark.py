# TPF023 eval_loader_shuffled: cudnn.benchmark next to convolutions and
# variable shapes that repeat, or that the rule cannot see.
import random

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader

torch.backends.cudnn.benchmark = True


def detection_collate(batch):
    return tuple(zip(*batch))


# case: a collate that keeps images as a list (the model resizes them)
def train_detector(model, dataset, opt):
    loader = DataLoader(dataset, batch_size=4, shuffle=True, collate_fn=detection_collate, num_workers=4, pin_memory=True)
    for images, targets in loader:
        losses = model(list(images), list(targets))
        opt.zero_grad()
        sum(losses.values()).backward()
        opt.step()


# case: multi-scale training over a few sizes (each is tuned once, then cached)
def train_multiscale(model, loader, opt):
    for imgs, y in loader:
        size = random.choice([320, 416, 512, 608])
        imgs = F.interpolate(imgs.cuda(), size=(size, size), mode="bilinear")
        opt.zero_grad()
        F.cross_entropy(model(imgs), y.cuda()).backward()
        opt.step()


# case: no automatic batching: the dataset yields ready batches
def train_prebatched(model, dataset, opt):
    loader = DataLoader(dataset, batch_size=None, num_workers=4, pin_memory=True)
    conv = nn.Conv2d(3, 8, 3).cuda()
    for x, y in loader:
        opt.zero_grad()
        F.cross_entropy(model(conv(x.cuda())), y.cuda()).backward()
        opt.step()


def fixed_collate(batch):
    longest = max(x.shape[-1] for x, _ in batch)
    xs = torch.stack([F.pad(x, (0, 1024 - x.shape[-1])) for x, _ in batch])
    return xs, torch.tensor([y for _, y in batch]), longest


# case: the batch's longest length is only recorded; every batch is padded to 1024
def train_fixed(model, dataset, opt, seen):
    loader = DataLoader(dataset, batch_size=8, shuffle=True, collate_fn=fixed_collate, num_workers=2, pin_memory=True)
    for x, y, longest in loader:
        seen.append(longest)
        opt.zero_grad()
        F.cross_entropy(model(x.cuda()), y.cuda()).backward()
        opt.step()
