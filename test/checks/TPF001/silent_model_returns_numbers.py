# TPF001 must stay silent: the model's forward returns its loss together
# with Python numbers (a perplexity taken with `.item()` in a helper, the
# batch size from `.size()`); the loop, calling the model through
# `nn.DataParallel` on one path, keeps only the numbers' quotient in a
# record of lists.
import torch
import torch.nn.functional as F


class Scorer(torch.nn.Module):
    def __init__(self, vocab, width):
        super().__init__()
        self.embed = torch.nn.Embedding(vocab, width)
        self.out = torch.nn.Linear(width, vocab)

    def summed_nll(self, logits, target):
        nll = F.cross_entropy(logits.flatten(0, 1), target.flatten(), reduction="none")
        return nll.sum().item(), nll.exp().sum().item()

    def forward(self, tokens, target):
        steps, batch = tokens.size()
        logits = self.out(self.embed(tokens))
        loss = F.cross_entropy(logits.flatten(0, 1), target.flatten())
        total, perplexity = self.summed_nll(logits.detach(), target)
        return loss, total, perplexity, batch


class Fitter:
    def __init__(self, gpus):
        self.net = Scorer(1000, 64)
        self.gpus = gpus

    def fit(self, loader):
        net = self.net
        if self.gpus > 1:
            net = torch.nn.DataParallel(net)
        opt = torch.optim.SGD(net.parameters(), lr=0.1)
        curve = {"ppl": []}
        for tokens, target in loader:
            loss, total, perplexity, batch = net(tokens, target)
            loss.backward()
            opt.step()
            opt.zero_grad()
            curve["ppl"].append(perplexity / batch)
        return len(curve)
