"""A character-level LSTM language model whose settings are module-level names, overridden
at run time by overrides.py (exec'd) from a config file and --name=value arguments."""
import torch
import torch.nn as nn
import torch.nn.functional as F

vocab = 256
hidden = 512
layers = 2
window = 128
batch_size = 64
exec(open("overrides.py").read())


class CharLM(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(vocab, hidden)
        self.rnn = nn.LSTM(hidden, hidden, num_layers=layers, batch_first=True)
        self.out = nn.Linear(hidden, vocab)

    def forward(self, ids):
        h, _ = self.rnn(self.embed(ids))
        return self.out(h)


def batch():
    ids = torch.randint(vocab, (batch_size, window + 1), device="cuda")
    return ids[:, :-1], ids[:, 1:]


model = CharLM().cuda()
opt = torch.optim.Adam(model.parameters(), lr=2e-3)
for step in range(10000):
    x, y = batch()
    loss = F.cross_entropy(model(x).flatten(0, 1), y.flatten())
    opt.zero_grad(set_to_none=True)
    loss.backward()
    opt.step()
