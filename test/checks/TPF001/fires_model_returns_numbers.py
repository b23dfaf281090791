# TPF001 must fire: the same forward returning its loss next to Python
# numbers, called through `nn.DataParallel` on one path; the loop keeps the
# loss element (with its graph), not a number.
import torch
import torch.nn.functional as F


class Scorer(torch.nn.Module):
    def __init__(self, vocab, width):
        super().__init__()
        self.embed = torch.nn.Embedding(vocab, width)
        self.out = torch.nn.Linear(width, vocab)

    def forward(self, tokens, target):
        steps, batch = tokens.size()
        logits = self.out(self.embed(tokens))
        loss = F.cross_entropy(logits.flatten(0, 1), target.flatten())
        return loss, batch


class Fitter:
    def __init__(self, gpus):
        self.net = Scorer(1000, 64)
        self.gpus = gpus

    def fit(self, loader):
        net = self.net
        if self.gpus > 1:
            net = torch.nn.DataParallel(net)
        opt = torch.optim.SGD(net.parameters(), lr=0.1)
        curve = {"loss": []}
        for tokens, target in loader:
            loss, batch = net(tokens, target)
            loss.backward()
            opt.step()
            opt.zero_grad()
            curve["loss"].append(loss / batch)  # expect: TPF001
        return len(curve)
