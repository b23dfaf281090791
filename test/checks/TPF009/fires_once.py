# TPF009 fires once per inner loop: a Trainer class whose step loop holds
# per-element loops making several host copies each (two `.item()` on one
# line, `.cpu().numpy()` chains, copies on two lines, a `while` test). The
# fix is one change to the loop, so there is one finding, at the first copy;
# the other copies are notes.
import numpy as np
import torch
import torch.nn.functional as F


class Trainer:
    def __init__(self, model, optimizer, loader):
        self.model = model
        self.optimizer = optimizer
        self.loader = loader
        self.hits = 0

    # case: two .item() in one comparison: one finding, not one per call
    def fit_accuracy(self):
        for images, labels in self.loader:
            self.optimizer.zero_grad()
            logits = self.model(images)
            F.cross_entropy(logits, labels).backward()
            self.optimizer.step()
            guess = logits.argmax(dim=1)
            for k in range(labels.numel()):
                if guess[k].item() == labels[k].item():  # expect: TPF009
                    self.hits += 1

    # case: x.cpu().numpy() per row: the .cpu() is the sync, .numpy() no second one
    def fit_embeddings(self, bank):
        for images, labels in self.loader:
            self.optimizer.zero_grad()
            feats = self.model(images)
            feats.pow(2).mean().backward()
            self.optimizer.step()
            for row in feats.detach():
                bank.append(row.cpu().numpy())  # expect: TPF009

    # case: copies on two lines of the same loop: one finding, the second a note
    def fit_margins(self, log):
        for images, labels in self.loader:
            self.optimizer.zero_grad()
            scores = self.model(images)
            F.multi_margin_loss(scores, labels).backward()
            self.optimizer.step()
            for k in range(scores.shape[0]):
                best = scores[k].max().item()  # expect: TPF009
                mine = scores[k, labels[k]].item()
                log.append(best - mine)

    # case: a `while` test that copies each element: the test is the line to fix
    def fit_prefix(self):
        for images, labels in self.loader:
            self.optimizer.zero_grad()
            probs = self.model(images).softmax(-1)
            F.nll_loss(probs.log(), labels).backward()
            self.optimizer.step()
            k = 0
            while k < probs.shape[0] and probs[k, 0].item() > 0.5:  # expect: TPF009
                k += 1
            self.hits += k

    # case: a loop nested in the per-element loop: the outer per-element loop is the one reported
    def fit_pairs(self):
        for images, labels in self.loader:
            self.optimizer.zero_grad()
            emb = self.model(images)
            emb.norm(dim=1).mean().backward()
            self.optimizer.step()
            for a in range(emb.shape[0]):
                anchor = emb[a].norm().item()  # expect: TPF009
                for b in range(a):
                    self.hits += int(np.isclose(anchor, emb[b].norm().item()))
