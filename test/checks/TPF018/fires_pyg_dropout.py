# TPF018 fires: PyTorch Geometric GNNs built with dropout or a batch norm
# validate differently in train mode.
import torch
import torch.nn.functional as F
from torch_geometric.nn import GAT, GCN, GIN


# case: a GCN with dropout=0.5
def fit_gcn(train_loader, val_loader, epochs):
    model = GCN(128, 256, 2, 172, dropout=0.5)
    optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
    for epoch in range(epochs):
        for batch in train_loader:
            optimizer.zero_grad()
            F.cross_entropy(model(batch.x, batch.edge_index), batch.y).backward()
            optimizer.step()
        with torch.no_grad():
            for batch in val_loader:
                print(model(batch.x, batch.edge_index).argmax(-1))  # expect: TPF018


# case: a GIN with a batch norm
def fit_gin(train_loader, val_loader, epochs):
    model = GIN(128, 256, 3, 172, norm="batch_norm")
    optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
    for epoch in range(epochs):
        for batch in train_loader:
            optimizer.zero_grad()
            F.cross_entropy(model(batch.x, batch.edge_index), batch.y).backward()
            optimizer.step()
        with torch.no_grad():
            for batch in val_loader:
                print(model(batch.x, batch.edge_index).argmax(-1))  # expect: TPF018


# case: a training helper handed a GAT with dropout by its only caller
def fit(model, train_loader, val_loader, epochs):
    optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
    for epoch in range(epochs):
        for batch in train_loader:
            optimizer.zero_grad()
            F.cross_entropy(model(batch.x, batch.edge_index), batch.y).backward()
            optimizer.step()
        with torch.no_grad():
            for batch in val_loader:
                print(model(batch.x, batch.edge_index).argmax(-1))  # expect: TPF018


def main(loaders):
    fit(GAT(128, 256, 2, 172, heads=4, dropout=0.6), *loaders, 10)
