# tpf: target=t4
"""An RNN language model whose init_hidden builds the hidden state with
`weight.new_zeros(nlayers, bsz, nhid)` (sizes as varargs): issue 19, the
interpreter read only the first size and stopped at the LSTM."""
import torch
import torch.nn as nn


class RNNModel(nn.Module):
    def __init__(self, ntoken, ninp, nhid, nlayers):
        super().__init__()
        self.encoder = nn.Embedding(ntoken, ninp)
        self.rnn = nn.LSTM(ninp, nhid, nlayers)
        self.decoder = nn.Linear(nhid, ntoken)
        self.nlayers = nlayers
        self.nhid = nhid

    def forward(self, input, hidden):
        emb = self.encoder(input)
        output, hidden = self.rnn(emb, hidden)
        return self.decoder(output), hidden

    def init_hidden(self, bsz):
        weight = next(self.parameters())
        return (weight.new_zeros(self.nlayers, bsz, self.nhid),
                weight.new_zeros(self.nlayers, bsz, self.nhid))


model = RNNModel(10000, 200, 200, 2).cuda()
optimizer = torch.optim.SGD(model.parameters(), lr=20)
criterion = nn.CrossEntropyLoss()
data = torch.randint(0, 10000, (35, 20)).cuda()
targets = torch.randint(0, 10000, (35 * 20,)).cuda()
hidden = model.init_hidden(20)
for step in range(10):
    hidden = tuple(h.detach() for h in hidden)
    optimizer.zero_grad()
    output, hidden = model(data, hidden)
    loss = criterion(output.view(-1, 10000), targets)
    loss.backward()
    optimizer.step()
