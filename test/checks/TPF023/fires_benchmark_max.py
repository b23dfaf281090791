# TPF023 eval_loader_shuffled: cudnn.benchmark while the collate function
# pads each batch by hand to the batch's longest sample.
import torch
import torch.nn.functional as F
from torch.utils.data import DataLoader

# case: zeros sized by max(len(...)) of the batch, 2-D convolutions on spectrograms
torch.backends.cudnn.benchmark = True  # expect: TPF023

conv = torch.nn.Conv2d(1, 32, 3, padding=1)


def pad_batch(batch):
    max_frames = max(spec.shape[-1] for spec, _ in batch)
    out = torch.zeros(len(batch), 1, batch[0][0].shape[0], max_frames)
    for i, (spec, _) in enumerate(batch):
        out[i, 0, :, : spec.shape[-1]] = spec
    return out, torch.tensor([label for _, label in batch])


def train(dataset, head, opt):
    loader = DataLoader(dataset, batch_size=16, shuffle=True, collate_fn=pad_batch, num_workers=2, pin_memory=True)
    for x, y in loader:
        opt.zero_grad()
        F.cross_entropy(head(conv(x.cuda()).mean((-1, -2))), y.cuda()).backward()
        opt.step()
