# TPF010 partial_seeding: a module of training helpers that a script
# imports; seeding is the caller's business.
import torch.nn.functional as F


# case: a train_one_epoch helper with no seeding, not run as a program
def train_one_epoch(model, loader, optimizer, device):
    model.train()
    for images, targets in loader:
        images, targets = images.to(device), targets.to(device)
        optimizer.zero_grad()
        F.cross_entropy(model(images), targets).backward()
        optimizer.step()
