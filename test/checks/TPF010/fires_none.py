# TPF010 partial_seeding: a tqdm training loop that seeds nothing.
import torch
import torch.nn as nn
from tqdm import tqdm


# case: no seeding at all (a note)
def fit(model: nn.Module, loader, epochs: int = 10):
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    criterion = nn.CrossEntropyLoss()
    for epoch in range(epochs):
        for inputs, targets in tqdm(loader):
            optimizer.zero_grad()
            loss = criterion(model(inputs), targets)
            loss.backward()  # expect: TPF010
            optimizer.step()


if __name__ == "__main__":
    fit(torch.nn.Linear(4, 2), [])
