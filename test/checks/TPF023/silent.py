# TPF023 eval_loader_shuffled: correct loaders that must stay silent.
import torch
import torch.nn.functional as F
from torch.utils.data import DataLoader
from torchvision import datasets, transforms

torch.backends.cudnn.benchmark = True


# case: shuffle=True on the training loader, shuffle=False for validation
def loaders(train_set, val_set):
    train_loader = DataLoader(train_set, batch_size=64, shuffle=True, num_workers=4, pin_memory=True)
    val_loader = DataLoader(val_set, batch_size=256, shuffle=False, num_workers=4, pin_memory=True)
    return train_loader, val_loader


# case: a loader named "test" that the loop trains on (a test-time tuning script)
def tune(model, test_set, opt):
    test_loader = DataLoader(test_set, batch_size=32, shuffle=True, num_workers=2, pin_memory=True)
    for x, y in test_loader:
        opt.zero_grad()
        F.cross_entropy(model(x), y).backward()
        opt.step()


# case: train + val merged for the final fit
def final_fit(trainval_set):
    return DataLoader(trainval_set, batch_size=64, shuffle=True, num_workers=4, pin_memory=True)


# case: a shuffle the file does not fix
def configured(val_set, args):
    return DataLoader(val_set, batch_size=64, shuffle=args.shuffle, num_workers=4, pin_memory=True)


# case: cudnn.benchmark with fixed-size resized images
def images(root):
    tf = transforms.Compose([transforms.Resize(256), transforms.CenterCrop(224), transforms.ToTensor()])
    train_set = datasets.ImageFolder(root, transform=tf)
    return DataLoader(train_set, batch_size=64, shuffle=True, num_workers=8, pin_memory=True)


# case: the training split spelled out with train=True
def mnist(root):
    return DataLoader(datasets.MNIST(root, train=True), batch_size=64, shuffle=True, num_workers=2, pin_memory=True)


# case: a collate_fn that pads to a fixed length
def collate_fixed(batch):
    xs, ys = zip(*batch)
    return torch.stack([F.pad(x, (0, 128 - x.shape[0])) for x in xs]), torch.tensor(ys)


def text_loader(train_set):
    return DataLoader(train_set, batch_size=32, shuffle=True, collate_fn=collate_fixed, num_workers=2, pin_memory=True)
