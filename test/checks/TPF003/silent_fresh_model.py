# TPF003 silent: each iteration builds a new model and a new optimizer over
# its parameters (a unit test over cases, a sweep): their gradients start
# empty, so nothing accumulates from one iteration to the next.
import itertools
from copy import deepcopy

import torch


# case: a layer and its optimizer per width
def check_params_move():
    for width in (4, 8, 16):
        layer = torch.nn.Linear(width, 2)
        before = [p.detach().clone() for p in layer.parameters()]
        layer(torch.randn(3, width)).sum().backward()
        sgd = torch.optim.SGD(layer.parameters(), lr=1.0)
        sgd.step()
        for p, q in zip(layer.parameters(), before):
            assert not torch.equal(p, q)


# case: the trainable parameters picked by a comprehension
def check_trainable_update(cases):
    for params, init in itertools.product([1, 2], cases):
        gen = torch.nn.Bilinear(init, init, params)
        trainable = {n: p for n, p in gen.named_parameters() if p.requires_grad}
        old = deepcopy(trainable)
        gen(torch.randn(2, init), torch.randn(2, init)).sum().backward()
        optim = torch.optim.SGD(trainable.values(), 1)
        optim.step()
        for name in old:
            assert trainable[name].ne(old[name]).any()


# case: a model per seed, trained a few steps
def sweep(seeds, batches):
    for seed in seeds:
        torch.manual_seed(seed)
        model = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.ReLU(), torch.nn.Linear(8, 1))
        opt = torch.optim.Adam(model.parameters())
        loss = model(batches[0]).pow(2).mean()
        loss.backward()
        opt.step()
