# TPF012 dataloader_without_workers: library code that builds a loader and
# mentions CUDA but never trains.
import torch
from torch.utils.data import DataLoader


# case: an inference helper on the GPU
@torch.no_grad()
def predict(model, dataset):
    loader = DataLoader(dataset, batch_size=128)
    outputs = []
    for x in loader:
        outputs.append(model(x.cuda()).cpu())
    return torch.cat(outputs)
