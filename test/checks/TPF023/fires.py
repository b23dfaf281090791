# TPF023 eval_loader_shuffled: evaluation loaders that shuffle.
import torch
import torch.nn.functional as F
from torch.utils.data import DataLoader
from torchvision import datasets


# case: the validation loader is shuffled like the training one
def loaders(train_set, val_set):
    train_loader = DataLoader(train_set, batch_size=64, shuffle=True, num_workers=4, pin_memory=True)
    val_loader = DataLoader(val_set, batch_size=256, shuffle=True, num_workers=4, pin_memory=True)  # expect: TPF023
    return train_loader, val_loader


# case: the dataset is the test split of a torchvision dataset
def test_loader(root, transform):
    return DataLoader(datasets.MNIST(root, train=False, transform=transform), batch_size=1000, shuffle=True)  # expect: TPF023


# case: a dataset named for the split, iterated under no_grad
def evaluate(model, test_ds):
    dl = DataLoader(test_ds, batch_size=128, shuffle=True, num_workers=2, pin_memory=True)  # expect: TPF023
    correct = 0
    with torch.no_grad():
        for x, y in dl:
            correct += (model(x).argmax(1) == y).sum().item()
    return correct


# case: a split= argument names the split
def dev_loader(make_dataset):
    return DataLoader(make_dataset(split="validation"), batch_size=32, shuffle=True, num_workers=2, pin_memory=True)  # expect: TPF023


# case: camelCase loader name
def build(eval_set):
    evalLoader = DataLoader(eval_set, batch_size=32, shuffle=True, num_workers=2, pin_memory=True)  # expect: TPF023
    return evalLoader
