# TPF023 eval_loader_shuffled: cudnn.benchmark with batches padded per
# batch, but no convolution for benchmark mode to tune.
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.utils.rnn import pad_sequence
from torch.utils.data import DataLoader

torch.backends.cudnn.benchmark = True


def collate(batch):
    xs, ys = zip(*batch)
    return pad_sequence(xs, batch_first=True), torch.tensor(ys)


# case: padded per batch, but an LSTM: no convolution for benchmark to tune
def train_rnn(train_set, opt, classes):
    rnn = nn.LSTM(80, 256, batch_first=True).cuda()
    head = nn.Linear(256, classes).cuda()
    loader = DataLoader(train_set, batch_size=32, shuffle=True, collate_fn=collate, num_workers=2, pin_memory=True)
    for x, y in loader:
        opt.zero_grad()
        out, _ = rnn(x.cuda())
        F.cross_entropy(head(out[:, -1]), y.cuda()).backward()
        opt.step()
