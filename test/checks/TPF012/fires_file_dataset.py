# TPF012 dataloader_without_workers: a dataset of the file whose
# __getitem__ decodes and transforms each sample.
import torch
import torch.nn.functional as F
from PIL import Image
from torch.utils.data import DataLoader, Dataset

torch.manual_seed(0)


class Cached(Dataset):
    def __init__(self, xs, ys):
        self.xs, self.ys = xs, ys

    def __len__(self):
        return len(self.ys)

    def __getitem__(self, i):
        return self.xs[i], self.ys[i]


class Images(Dataset):
    def __init__(self, paths, labels, transform):
        self.paths, self.labels, self.transform = paths, labels, transform

    def __len__(self):
        return len(self.paths)

    def __getitem__(self, i):
        return self.transform(Image.open(self.paths[i]).convert("RGB")), self.labels[i]


# case: images decoded in the training process
def train(model, paths, labels, transform, opt):
    loader = DataLoader(Images(paths, labels, transform), batch_size=64, shuffle=True)  # expect: TPF012
    for x, y in loader:
        opt.zero_grad()
        F.cross_entropy(model(x.cuda()), y.cuda()).backward()
        opt.step()


# case: in-memory tensors trained on: pinned batches still copy faster
def train_cached(model, xs, ys, opt):
    loader = DataLoader(Cached(xs, ys), batch_size=256, shuffle=True, num_workers=2)  # expect: TPF012
    for x, y in loader:
        opt.zero_grad()
        F.cross_entropy(model(x.cuda()), y.cuda()).backward()
        opt.step()


if __name__ == "__main__":
    train(None, [], [], None, None)
