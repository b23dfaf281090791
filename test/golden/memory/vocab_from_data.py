# tpf: target=a10g batch-size=32
"""A word-level GRU language model whose vocabulary is built from a corpus file at run time
(pytorch/examples word_language_model style). The interpreter reads the file's lines as one
unknown pass, so the vocabulary's length is not the run's: the embedding and output sizes are
unknown and the parameter count is a lower bound, never the count of a one-word vocabulary."""
import torch
import torch.nn as nn


class Vocab:
    def __init__(self):
        self.words = []
        self.index = {}

    def add(self, word):
        if word not in self.index:
            self.index[word] = len(self.words)
            self.words.append(word)

    def __len__(self):
        return len(self.words)


vocab = Vocab()
with open("corpus/train.txt", encoding="utf8") as f:
    for line in f:
        for word in line.split() + ["<eos>"]:
            vocab.add(word)


class WordGRU(nn.Module):
    def __init__(self, ntokens, dim=650):
        super().__init__()
        self.embed = nn.Embedding(ntokens, dim)
        self.gru = nn.GRU(dim, dim, num_layers=2)
        self.head = nn.Linear(dim, ntokens)

    def forward(self, ids):
        out, _ = self.gru(self.embed(ids))
        return self.head(out)


model = WordGRU(len(vocab)).cuda()
opt = torch.optim.SGD(model.parameters(), lr=20.0)
