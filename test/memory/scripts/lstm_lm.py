"""Word-level LSTM language model, PTB-style truncated BPTT (the "small" config).

Embedding -> 2-layer LSTM with dropout -> linear decoder; hidden state carried
across batches and detached; plain SGD with a large learning rate and
gradient clipping, as in the classic word_language_model recipe.
Fixture for tools/measure_memory.py; see test/memory/README.md.
"""
import argparse
import types

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

NTOKENS = 10000


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--emsize", type=int, default=200)
    p.add_argument("--nhid", type=int, default=200)
    p.add_argument("--nlayers", type=int, default=2)
    p.add_argument("--lr", type=float, default=20.0)
    p.add_argument("--clip", type=float, default=0.25)
    p.add_argument("--bptt", type=int, default=20)
    p.add_argument("--batch-size", type=int, default=20)
    p.add_argument("--dropout", type=float, default=0.2)
    p.add_argument("--epochs", type=int, default=40)
    p.add_argument("--max-steps", type=int, default=None)
    return p.parse_args(argv)


class RNNModel(nn.Module):
    def __init__(self, ntoken, ninp, nhid, nlayers, dropout):
        super().__init__()
        self.drop = nn.Dropout(dropout)
        self.encoder = nn.Embedding(ntoken, ninp)
        self.rnn = nn.LSTM(ninp, nhid, nlayers, dropout=dropout, batch_first=True)
        self.decoder = nn.Linear(nhid, ntoken)
        self.nlayers, self.nhid = nlayers, nhid

    def forward(self, tokens, hidden):
        emb = self.drop(self.encoder(tokens))
        output, hidden = self.rnn(emb, hidden)
        output = self.drop(output)
        return self.decoder(output), hidden

    def init_hidden(self, bsz, device):
        return (torch.zeros(self.nlayers, bsz, self.nhid, device=device),
                torch.zeros(self.nlayers, bsz, self.nhid, device=device))


def build(args):
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model = RNNModel(NTOKENS, args.emsize, args.nhid, args.nlayers, args.dropout).to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr)
    stream = torch.randint(0, NTOKENS, (args.batch_size * args.bptt * 8 + 1,))
    n = (len(stream) - 1) // args.bptt
    x = stream[:n * args.bptt].view(n, args.bptt)
    y = stream[1:n * args.bptt + 1].view(n, args.bptt)
    loader = DataLoader(TensorDataset(x, y), batch_size=args.batch_size, drop_last=True)
    hidden = model.init_hidden(args.batch_size, device)
    return types.SimpleNamespace(models={"model": model}, optimizers={"optimizer": optimizer},
                                 loader=loader, device=device, hidden=hidden, clip=args.clip)


def forward_loss(s, batch):
    tokens, targets = batch[0].to(s.device), batch[1].to(s.device)
    s.hidden = tuple(h.detach() for h in s.hidden)
    output, s.hidden = s.models["model"](tokens, s.hidden)
    return F.cross_entropy(output.view(-1, NTOKENS), targets.reshape(-1))


def train_step(s, batch):
    model = s.models["model"]
    model.zero_grad()
    loss = forward_loss(s, batch)
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), s.clip)
    s.optimizers["optimizer"].step()
    return loss.item()


def main(argv=None):
    args = parse_args(argv)
    s = build(args)
    step = 0
    for _ in range(args.epochs):
        for batch in s.loader:
            train_step(s, batch)
            step += 1
            if args.max_steps and step >= args.max_steps:
                return


if __name__ == "__main__":
    main()
