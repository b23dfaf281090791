# TPF008 stays silent when a validation helper leaves in eval mode a model
# none of whose layers eval mode changes: a shallow embedding model of a
# library documented without dropout or norm layers (PyTorch Geometric's
# MetaPath2Vec and Node2Vec), or the file's own Linear/ReLU network. Other
# library models are not known and still count as mode-dependent.
import torch
from torch import nn
from torch_geometric.nn import MetaPath2Vec, Node2Vec

walker = MetaPath2Vec(edges, embedding_dim=64, metapath=paths, walk_length=20, context_size=5)
opt = torch.optim.SparseAdam(list(walker.parameters()), lr=0.01)
mlp = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 3))
mlp_opt = torch.optim.SGD(mlp.parameters(), lr=0.1)


def score():
    walker.eval()
    with torch.no_grad():
        return walker("author").norm().item()


def probe_accuracy(x, y):
    mlp.eval()
    with torch.no_grad():
        return (mlp(x).argmax(-1) == y).float().mean().item()


def fit(walks, batches, epochs):
    for epoch in range(epochs):
        for pos, neg in walks:
            opt.zero_grad()
            walker.loss(pos, neg).backward()
            opt.step()
        print(score())
        for x, y in batches:
            mlp_opt.zero_grad()
            nn.functional.cross_entropy(mlp(x), y).backward()
            mlp_opt.step()
        print(probe_accuracy(x, y))


def fit_node2vec(edge_index, walks):
    n2v = Node2Vec(edge_index, embedding_dim=32, walk_length=10, context_size=4)
    n2v_opt = torch.optim.SparseAdam(list(n2v.parameters()), lr=0.01)
    n2v.train()
    for epoch in range(5):
        for pos, neg in walks:
            n2v_opt.zero_grad()
            n2v.loss(pos, neg).backward()
            n2v_opt.step()
        n2v.eval()
