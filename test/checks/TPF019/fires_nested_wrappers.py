# TPF019 must fire: the loader reaches the training loop through two
# wrappers (enumerate over a progress bar), and the epoch loop is a trange.
import torch
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler
from tqdm import tqdm, trange


def finetune(model, optimizer, features, labels, epochs, batch):
    data = TensorDataset(features, labels)
    sampler = DistributedSampler(data)  # expect: TPF019
    loader = DataLoader(data, sampler=sampler, batch_size=batch)
    model.train()
    for _ in trange(epochs, desc="epoch"):
        for step, (x, y) in enumerate(tqdm(loader, desc="batch")):
            loss = torch.nn.functional.cross_entropy(model(x), y)
            loss.backward()
            optimizer.step()
            optimizer.zero_grad()
