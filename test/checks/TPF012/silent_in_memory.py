# TPF012 dataloader_without_workers: a dataset of the file that hands out
# values it already holds has nothing to load in a worker or to pin.
import torch
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset

torch.manual_seed(0)


class RepeatedPrompt(Dataset):
    def __init__(self, text, count):
        self.text = text
        self.count = count

    def __len__(self):
        return self.count

    def __getitem__(self, i):
        return {"text": self.text, "i": i}


class Cached(Dataset):
    def __init__(self, xs, ys):
        self.xs, self.ys = xs, ys

    def __len__(self):
        return len(self.ys)

    def __getitem__(self, i):
        return self.xs[i], self.ys[i]


# case: prompts for sampling images before training, no workers
def sample_then_train(pipe, model, loader, opt, n):
    prompts = DataLoader(RepeatedPrompt("a photo of a dog", n), batch_size=4)
    for batch in prompts:
        pipe(batch["text"])
    for x, y in loader:
        opt.zero_grad()
        F.mse_loss(model(x.cuda()), y.cuda()).backward()
        opt.step()


# case: prompts prepared by a framework, then sampled in a generation loop
def sample_prepared(accelerator, pipe, n):
    loader = DataLoader(RepeatedPrompt("a photo of a cat", n), batch_size=8)
    loader = accelerator.prepare(loader)
    images = []
    for batch in loader:
        images.extend(pipe(batch["text"]).images)
    return images
