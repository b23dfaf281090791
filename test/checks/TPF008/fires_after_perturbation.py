# TPF008 must fire: the attack's optimizer steps only the perturbation, but
# the model's own step follows with the model left in eval mode by the
# attack; the epoch loop never calls train() again.
import torch
import torch.nn as nn
import torch.nn.functional as F


def main(loader, epochs, eps=0.03):
    model = nn.Sequential(nn.Flatten(), nn.Linear(784, 128), nn.Dropout(0.2), nn.Linear(128, 10))
    opt = torch.optim.Adam(model.parameters())
    model.train()
    for epoch in range(epochs):
        for x, y in loader:
            loss = F.cross_entropy(model(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
        model.eval()  # expect: TPF008
        for x, y in loader:
            delta = torch.zeros_like(x).requires_grad_(True)
            attack = torch.optim.SGD([delta], lr=eps)
            attack.zero_grad()
            (-F.cross_entropy(model(x + delta), y)).backward()
            attack.step()
            print(model(x + delta.detach()).argmax(1).eq(y).float().mean().item())
