# TPF009 device_sync_in_inner_loop: a synchronize for an exact step timer,
# followed by the per-step `.item()` of the log: that copy waits for the
# same queue anyway, so the synchronize adds no stall.
import time

import torch
import torch.nn.functional as F

torch.manual_seed(0)


# case: synchronize, time, then loss.item() every step
def train_epoch(model, loader, opt, meter):
    end = time.time()
    for x, y in loader:
        loss = F.cross_entropy(model(x.cuda()), y.cuda())
        opt.zero_grad()
        loss.backward()
        opt.step()
        torch.cuda.synchronize()
        meter.update(time.time() - end, loss.item())
        end = time.time()


if __name__ == "__main__":
    train_epoch(None, [], None, None)
