# TPF023 eval_loader_shuffled: cudnn.benchmark with batches padded to their
# own longest sequence, feeding convolutions.
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.utils.rnn import pad_sequence
from torch.utils.data import DataLoader

# case: the training loader pads per batch while benchmark autotunes per shape
torch.backends.cudnn.benchmark = True  # expect: TPF023


class Frontend(nn.Module):
    def __init__(self, classes):
        super().__init__()
        self.conv = nn.Conv1d(1, 64, kernel_size=400, stride=160)
        self.head = nn.Linear(64, classes)

    def forward(self, wav):
        return self.head(self.conv(wav.unsqueeze(1)).mean(-1))


def collate(batch):
    xs, ys = zip(*batch)
    return pad_sequence(xs, batch_first=True), torch.tensor(ys)


def train(train_set, opt):
    model = Frontend(10).cuda()
    loader = DataLoader(train_set, batch_size=32, shuffle=True, collate_fn=collate, num_workers=2, pin_memory=True)
    for x, y in loader:
        opt.zero_grad()
        F.cross_entropy(model(x.cuda()), y.cuda()).backward()
        opt.step()
