# TPF006 must fire: the model is an nn.Sequential assembled with
# add_module, kept in an attribute, and every call is spelled out as
# .forward(...), the criterion's too.
import torch


class Tagger(torch.nn.Module):
    def __init__(self, n_in, n_tags):
        super().__init__()
        self.body = torch.nn.Sequential()
        self.body.add_module("hidden", torch.nn.Linear(n_in, 64))
        self.body.add_module("act", torch.nn.Tanh())
        self.body.add_module("out", torch.nn.Linear(64, n_tags))
        self.body.add_module("probs", torch.nn.Softmax(dim=1))  # expect: TPF006

    def forward(self, x):
        return self.body.forward(x)


def step(net, objective, opt, x, y):
    opt.zero_grad()
    cost = objective.forward(net.forward(x), y)
    cost.backward()
    opt.step()
    return cost.item()


def main(rows):
    torch.manual_seed(7)
    net = Tagger(20, 5)
    objective = torch.nn.CrossEntropyLoss()
    opt = torch.optim.SGD(net.parameters(), lr=0.05)
    for x, y in rows:
        step(net, objective, opt, x, y)
