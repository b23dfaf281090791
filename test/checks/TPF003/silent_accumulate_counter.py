# TPF003 must stay silent: gradient accumulation written with a counter that
# the loop resets, and with the clear and the step under separate tests of the
# same counter. Every path from a step to the next step clears the gradients
# first, or the tests pick the same iterations.
import torch
import torch.nn.functional as F


# case: a counter of micro-batches, reset where the step runs
def accumulate_counted(net, batches, opt, micro_per_step):
    micro = 0
    for x, y in batches:
        F.l1_loss(net(x), y).div(micro_per_step).backward()
        micro += 1
        if micro == micro_per_step:
            opt.step()
            opt.zero_grad(set_to_none=True)
            micro = 0


# case: an early `continue` skips the step until the window is full
def accumulate_continue(net, batches, opt, window):
    for n, (x, y) in enumerate(batches, start=1):
        (F.mse_loss(net(x), y) / window).backward()
        if n % window:
            continue
        opt.step()
        opt.zero_grad()


# case: the clear opens a window, the step closes it: two tests of one counter
def accumulate_windows(net, batches, opt, window):
    micro = 0
    for x, y in batches:
        if micro == 0:
            opt.zero_grad()
        (F.smooth_l1_loss(net(x), y) / window).backward()
        micro += 1
        if micro == window:
            opt.step()
            micro = 0


# case: the profiler and the schedule step every iteration; the optimizer
# steps and clears together every `window` micro-batches
def accumulate_profiled(net, batches, opt, lr_schedule, window):
    with torch.profiler.profile() as profiler:
        for n, (x, y) in enumerate(batches):
            (F.l1_loss(net(x), y) / window).backward()
            if (n + 1) % window == 0:
                opt.step()
                opt.zero_grad(set_to_none=True)
            lr_schedule.step()
            profiler.step()
