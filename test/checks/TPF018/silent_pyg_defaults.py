# TPF018 silent: PyTorch Geometric's stock GNNs built with their defaults
# (dropout=0.0, norm=None) have no layer that train mode changes: the
# no_grad validation in train mode computes what it would in eval mode.
import torch
import torch.nn.functional as F
import torch_geometric
from torch_geometric.nn import GraphSAGE
from torch_geometric.nn.models import GCN


def run(model, train_loader, val_loader, epochs):
    optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
    for epoch in range(epochs):
        for batch in train_loader:
            optimizer.zero_grad()
            F.cross_entropy(model(batch.x, batch.edge_index), batch.y).backward()
            optimizer.step()
        with torch.no_grad():
            for batch in val_loader:
                print((model(batch.x, batch.edge_index).argmax(-1) == batch.y).float().mean())


def main(args, loaders):
    # case: GCN or GAT by a flag, positional channels only
    if args.use_gat:
        model = torch_geometric.nn.models.GAT(128, 256, 2, 172, heads=4)
    else:
        model = GCN(128, 256, 2, 172)
    run(model, *loaders, args.epochs)

    # case: GraphSAGE with an explicit dropout of 0 and no norm
    sage = GraphSAGE(128, 256, num_layers=3, out_channels=172, dropout=0.0, norm=None)
    opt = torch.optim.SGD(sage.parameters(), lr=0.1)
    for epoch in range(args.epochs):
        for batch in loaders[0]:
            opt.zero_grad()
            F.cross_entropy(sage(batch.x, batch.edge_index), batch.y).backward()
            opt.step()
        with torch.no_grad():
            for batch in loaders[1]:
                print(sage(batch.x, batch.edge_index).argmax(-1))
