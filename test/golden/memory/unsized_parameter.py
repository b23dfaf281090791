# tpf: target=a100 batch-size=64
"""A graph-attention-style layer whose input width comes from data the analyzer cannot read
(pytorch/examples gat): the parameter count is a lower bound, and the report says so."""
import torch
import torch.nn as nn

from lab.data import load_cora

features, labels, adj = load_cora()


class GraphAttention(nn.Module):
    def __init__(self, in_features, hidden, heads):
        super().__init__()
        self.W = nn.Parameter(torch.empty(size=(in_features, hidden * heads)))
        self.a = nn.Parameter(torch.empty(size=(heads, 2 * hidden, 1)))
        self.out = nn.Linear(hidden * heads, 7)

    def forward(self, h):
        return self.out(h @ self.W)


model = GraphAttention(features.shape[1], 64, 8).cuda()
opt = torch.optim.Adam(model.parameters(), lr=5e-3)
for epoch in range(300):
    opt.zero_grad()
    loss = nn.functional.cross_entropy(model(features), labels)
    loss.backward()
    opt.step()
