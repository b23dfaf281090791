# tpf: target=a10g
"""Times a network twice, each run in a function that builds its own copy and returns
only timings: first inference under torch.inference_mode(), then training with Adam.
Both copies have the same parameter bytes and never live at once; the set counted is
the trained one, whose gradients and Adam state (two buffers per weight) the peak holds.
The inference copy is the one named as never alive with it."""
import time

import torch
import torch.nn as nn


def make_net(width=2048, depth=6):
    blocks = []
    for _ in range(depth):
        blocks += [nn.Linear(width, width), nn.LayerNorm(width), nn.GELU()]
    return nn.Sequential(*blocks, nn.Linear(width, 10)).cuda()


def time_inference(batch, steps=20):
    net = make_net().eval()
    x = torch.randn(batch, 2048, device="cuda")
    start = time.perf_counter()
    with torch.inference_mode():
        for _ in range(steps):
            net(x)
    return (time.perf_counter() - start) / steps


def time_training(batch, steps=20):
    net = make_net().train()
    opt = torch.optim.Adam(net.parameters(), lr=1e-4)
    x = torch.randn(batch, 2048, device="cuda")
    y = torch.randint(0, 10, (batch,), device="cuda")
    start = time.perf_counter()
    for _ in range(steps):
        opt.zero_grad(set_to_none=True)
        nn.functional.cross_entropy(net(x), y).backward()
        opt.step()
    return (time.perf_counter() - start) / steps


if __name__ == "__main__":
    print("infer", time_inference(512), "train", time_training(512))
