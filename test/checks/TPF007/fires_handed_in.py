# TPF007 must fire: sigmoid before a BCEWithLogitsLoss that reaches the
# step helper as a parameter.
import torch
import torch.nn as nn


def train_step(model, objective, opt, x, target):
    opt.zero_grad()
    probs = torch.sigmoid(model(x))  # expect: TPF007
    loss = objective(probs, target)
    loss.backward()
    opt.step()
    return loss.item()


torch.manual_seed(0)
model = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.01)
objective = nn.BCEWithLogitsLoss(pos_weight=torch.tensor([3.0]))
for x, target in pairs:
    train_step(model, objective, opt, x, target)
