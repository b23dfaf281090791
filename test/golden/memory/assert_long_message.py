# tpf: target=h100
"""An `assert` the interpreter cannot decide, whose message is an f-string of the values it
compares: the message builds many ops before the raise. Like the short-message assert, it is
taken to hold and the run goes on to its training step; before, the long message hid the raise
and the script was taken to stop there. torch 1.13 counts 2,099,200 parameters."""
import numpy as np
import torch
import torch.nn as nn

model = nn.Sequential(nn.Linear(1024, 1024), nn.ReLU(), nn.Linear(1024, 1024)).cuda()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
stats = np.load("stats.npz")
assert stats["mean"].shape == stats["std"].shape, (
    f"statistics do not align\nmean: {stats['mean'].shape}\nstd: {stats['std'].shape}\n"
    f"file: {stats.files}"
)
for step in range(100):
    x = torch.randn(64, 1024, device="cuda")
    loss = model(x).pow(2).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
