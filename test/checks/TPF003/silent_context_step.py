# TPF003 silent: gradient accumulation (step and zero_grad under one guard);
# the `step()` every iteration is the profiler's or FLOP counter's that a
# `with` yields: an optimizer is no context manager.
import contextlib

import torch


@contextlib.contextmanager
def profiling(use_profiler):
    if use_profiler:
        with torch.profiler.profile(schedule=torch.profiler.schedule(wait=1, warmup=1, active=2)) as prof:
            yield prof
    else:
        yield contextlib.nullcontext()


# case: a context yielded by the file's @contextmanager
def train(net, opt, accum, use_profiler):
    with profiling(use_profiler) as ctx:
        for step in range(64):
            loss = net(torch.randn(8, 4)).pow(2).mean() / accum
            loss.backward()
            if (step + 1) % accum == 0:
                opt.step()
                opt.zero_grad()
            ctx.step()


# case: a library's context manager bound to a short name
def train_flops(net, opt, loader, counter_cls):
    with counter_cls(display=False) as c:
        for i, (x, y) in enumerate(loader):
            (torch.nn.functional.mse_loss(net(x), y) / 4).backward()
            if i % 4 == 3:
                opt.step()
                opt.zero_grad()
            c.step()
