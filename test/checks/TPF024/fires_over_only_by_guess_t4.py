# tpf: target=t4
# case: an MLP over features from a loader of the project's own, so the input is synthesized: over a T4 only by that guess
import torch
import torch.nn as nn

from features import feature_batches

torch.manual_seed(0)
BATCH = 85000
model = nn.Sequential(nn.Linear(4096, 8192), nn.ReLU(), nn.Linear(8192, 8192), nn.ReLU(), nn.Linear(8192, 1000)).cuda()
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
crit = nn.CrossEntropyLoss()
for x, y in feature_batches(BATCH):
    loss = crit(model(x.cuda()), y.cuda())
    loss.backward()  # expect: TPF024
    opt.step()
    opt.zero_grad()
