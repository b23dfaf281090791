# TPF010 silent: torch is seeded and drives all training; `random` only
# picks which test image to show once training is over. It decides nothing
# that is trained, so the runs stay repeatable.
import random

import torch
import torch.nn as nn

torch.manual_seed(777)
model = nn.Linear(784, 10)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
images, labels = torch.randn(256, 784), torch.randint(0, 10, (256,))

for epoch in range(5):
    for i in range(0, 256, 32):
        opt.zero_grad()
        nn.functional.cross_entropy(model(images[i:i + 32]), labels[i:i + 32]).backward()
        opt.step()

with torch.no_grad():
    r = random.randint(0, len(images) - 1)
    print("label:", labels[r].item(), "prediction:", model(images[r:r + 1]).argmax(1).item())
