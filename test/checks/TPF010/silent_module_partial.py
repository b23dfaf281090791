# TPF010 partial_seeding: a helper module (not run as a program) that seeds
# torch for its tests while also using random; the test runner seeds.
import random

import torch
import torch.nn.functional as F


# case: partial seeding inside a test helper of a test suite
def check_training_converges(model_fn, data):
    torch.manual_seed(0)
    model = model_fn()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for step in range(10):
        x, y = random.choice(data)
        opt.zero_grad()
        F.mse_loss(model(x), y).backward()
        opt.step()
