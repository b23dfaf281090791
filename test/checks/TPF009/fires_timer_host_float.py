# TPF009 device_sync_in_inner_loop: a synchronize every step whose later
# `float(...)` converts Python numbers, not a tensor: nothing else waits
# for the queue, the synchronize is the step's stall.
import time

import torch
import torch.nn.functional as F

torch.manual_seed(11)


# case: float() of a clock difference and of an option
def run_epoch(model, batches, opt, args, times):
    for rgb, depth in batches:
        start = time.perf_counter()
        loss = F.l1_loss(model(rgb.cuda()), depth.cuda())
        opt.zero_grad()
        loss.backward()
        opt.step()
        torch.cuda.synchronize()  # expect: TPF009
        times.append(float(time.perf_counter() - start) * float(args.scale))


if __name__ == "__main__":
    run_epoch(None, [], None, None, [])
