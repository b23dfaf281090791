# TPF023 eval_loader_shuffled: cudnn.benchmark with batches padded to their
# own longest sequence.
import torch
import torch.nn.functional as F
from torch.nn.utils.rnn import pad_sequence
from torch.utils.data import DataLoader

# case: the training loader pads per batch while benchmark autotunes per shape
torch.backends.cudnn.benchmark = True  # expect: TPF023


def collate(batch):
    xs, ys = zip(*batch)
    return pad_sequence(xs, batch_first=True), torch.tensor(ys)


def train(model, train_set, opt):
    loader = DataLoader(train_set, batch_size=32, shuffle=True, collate_fn=collate, num_workers=2, pin_memory=True)
    for x, y in loader:
        opt.zero_grad()
        F.cross_entropy(model(x.cuda()), y.cuda()).backward()
        opt.step()
