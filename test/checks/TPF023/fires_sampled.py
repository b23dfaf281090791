# TPF023: shuffled validation loaders that an evaluation pass does read,
# even where the script also samples them, PyTorch-GAN style.
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
generator = nn.Sequential(nn.Linear(16, 16), nn.Tanh())
optimizer = torch.optim.Adam(generator.parameters(), lr=2e-4)
pairs = TensorDataset(torch.randn(64, 16), torch.randn(64, 16))
dataloader = DataLoader(pairs, batch_size=8, shuffle=True, num_workers=2, pin_memory=True)

# case: sampled for images, and also iterated for a validation loss
val_dataloader = DataLoader(pairs, batch_size=10, shuffle=True, num_workers=1, pin_memory=True)  # expect: TPF023


def sample_images():
    imgs = next(iter(val_dataloader))
    return generator(imgs[0])


def validation_loss():
    total = 0.0
    with torch.no_grad():
        for x, y in val_dataloader:
            total += nn.functional.mse_loss(generator(x), y).item()
    return total


# case: one iterator kept and drawn from batch after batch
test_dataloader = DataLoader(pairs, batch_size=10, shuffle=True, num_workers=1, pin_memory=True)  # expect: TPF023


def drain():
    it = iter(test_dataloader)
    seen = 0
    with torch.no_grad():
        for _ in range(4):
            x, y = next(it)
            seen += generator(x).shape[0]
    return seen


# case: handed to a helper that may run a pass over it
def evaluate(loader):
    return sum(1 for _ in loader)


def report(dataset):
    eval_loader = DataLoader(dataset, batch_size=4, shuffle=True, num_workers=1, pin_memory=True)  # expect: TPF023
    first = next(iter(eval_loader))
    return evaluate(eval_loader), first


# case: the iterator is kept in a global and drawn from again
dev_loader = DataLoader(pairs, batch_size=4, shuffle=True, num_workers=1, pin_memory=True)  # expect: TPF023
dev_iter = iter(dev_loader)


def next_dev():
    return next(dev_iter)


for epoch in range(2):
    for x, y in dataloader:
        optimizer.zero_grad()
        nn.functional.mse_loss(generator(x), y).backward()
        optimizer.step()
    print(sample_images().shape, validation_loss(), drain(), report(pairs), next_dev())
