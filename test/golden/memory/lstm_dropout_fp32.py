# tpf: target=t4 batch-size=64 seq-len=70 breakdown
"""A word-level LSTM LM in fp32 with the CLI overriding batch and BPTT length."""
import argparse

import torch
import torch.nn as nn

p = argparse.ArgumentParser()
p.add_argument("--batch-size", type=int, default=20)
p.add_argument("--bptt", type=int, default=35)
args = p.parse_args()


class LM(nn.Module):
    def __init__(self, ntoken=33278, ninp=650, nhid=650, nlayers=2, dropout=0.5):
        super().__init__()
        self.drop = nn.Dropout(dropout)
        self.encoder = nn.Embedding(ntoken, ninp)
        self.rnn = nn.LSTM(ninp, nhid, nlayers, dropout=dropout)
        self.decoder = nn.Linear(nhid, ntoken)

    def forward(self, x, hidden):
        out, hidden = self.rnn(self.drop(self.encoder(x)), hidden)
        return self.decoder(self.drop(out)), hidden


model = LM().cuda()
optimizer = torch.optim.SGD(model.parameters(), lr=20)
hidden = (torch.zeros(2, args.batch_size, 650, device="cuda"), torch.zeros(2, args.batch_size, 650, device="cuda"))
data = torch.randint(0, 33278, (args.bptt, args.batch_size), device="cuda")
targets = torch.randint(0, 33278, (args.bptt * args.batch_size,), device="cuda")
for i in range(1000):
    hidden = tuple(h.detach() for h in hidden)
    output, hidden = model(data, hidden)
    loss = nn.functional.cross_entropy(output.view(-1, 33278), targets)
    model.zero_grad()
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 0.25)
    optimizer.step()
