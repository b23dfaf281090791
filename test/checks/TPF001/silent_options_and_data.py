# TPF001 stays silent: the command line's options are numbers, `.data`
# has no history, and a value from `time` or `os` carries no graph.
import argparse
import time

import torch

cli = argparse.ArgumentParser()
cli.add_argument("--chunk", type=int, default=4)
cli.add_argument("--total", type=int, default=16)
opts = cli.parse_args()


def run(model, optimizer, batches):
    seen, elapsed, weighted = 0, 0.0, 0.0
    for batch in batches:
        optimizer.zero_grad()
        t0 = time.time()
        part = model(batch).square().mean()
        (part * opts.chunk / opts.total).backward()
        optimizer.step()
        weighted += part.data * opts.chunk / opts.total
        seen += opts.chunk
        elapsed += time.time() - t0
    return seen, elapsed, weighted


torch.manual_seed(1)
lin = torch.nn.Linear(3, 1)
print(run(lin, torch.optim.SGD(lin.parameters(), lr=0.1), [torch.randn(4, 3)] * 8))
