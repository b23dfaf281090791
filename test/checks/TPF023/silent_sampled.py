# TPF023 must stay silent: shuffled validation loaders that are only sampled,
# one batch from a fresh iterator, for a grid of images to log (the
# PyTorch-GAN scripts' `sample_images()`): no evaluation pass runs.
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset
from torchvision import datasets, transforms
from torchvision.utils import save_image

torch.manual_seed(0)
cuda = torch.cuda.is_available()
generator = nn.Sequential(nn.Linear(16, 16), nn.Tanh())
optimizer = torch.optim.Adam(generator.parameters(), lr=2e-4)
pairs = TensorDataset(torch.randn(64, 16), torch.randn(64, 16))
dataloader = DataLoader(pairs, batch_size=8, shuffle=True, num_workers=2, pin_memory=True)

# case: a module-level validation loader drawn from in a helper
val_dataloader = DataLoader(pairs, batch_size=10, shuffle=True, num_workers=1, pin_memory=True)


def sample_images(batches_done):
    imgs = next(iter(val_dataloader))
    fake = generator(imgs[0])
    save_image(torch.cat((imgs[0], fake), -2), "images/%d.png" % batches_done, nrow=5)


# case: a test split drawn from once, at module level
testdata = DataLoader(
    datasets.MNIST("data", train=False, transform=transforms.ToTensor()),
    batch_size=32,
    shuffle=True,
    num_workers=1,
    pin_memory=True,
)
test_imgs, test_labels = next(iter(testdata))


# case: a loader local to a function, sampled and its length read
def show_batch(dataset):
    val_loader = DataLoader(dataset, batch_size=4, shuffle=True, num_workers=1, pin_memory=True)
    print(len(val_loader))
    images, labels = next(iter(val_loader))
    save_image(images, "batch.png")


# case: sampled twice, each time from a fresh iterator
def sample_twice():
    first = next(iter(val_dataloader))
    second = next(iter(val_dataloader))
    return first[0] - second[0]


for epoch in range(2):
    for i, (x, y) in enumerate(dataloader):
        optimizer.zero_grad()
        loss = nn.functional.mse_loss(generator(x), y)
        loss.backward()
        optimizer.step()
        if i % 4 == 0:
            sample_images(epoch * len(dataloader) + i)
    show_batch(pairs)
    print(sample_twice().abs().mean().item(), test_imgs.shape)
