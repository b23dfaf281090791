# TPF002 must fire: `train(False)` is eval mode, not training, and the
# softmax without parameters does not hide the model's own forward.
import torch
from torch import nn
from torch.utils.data import DataLoader


def score(model, dataset):
    softmax = nn.Softmax(dim=1)
    total = 0.0
    for x, _ in DataLoader(dataset, batch_size=64):
        model.train(False)
        probs = softmax(model(x.cuda()))  # expect: TPF002
        total += probs.max(1).values.sum().item()
    print(total)


if __name__ == "__main__":
    net = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 3)).cuda()
    score(net, torch.utils.data.TensorDataset(torch.randn(512, 16), torch.zeros(512)))
