# TPF009 device_sync_in_inner_loop: a host read on every path of the step
# before the synchronize, with only host numbers handled in between,
# already waited for the queue: the synchronize finds the GPU idle.
import time

import torch
import torch.distributed as dist

torch.manual_seed(0)


class Meter:
    def __init__(self):
        self.total, self.count = 0.0, 0

    def update(self, value, n=1):
        self.total += value * n
        self.count += n


# case: the loss meters read the loss, then the batch timer synchronizes
def train(model, loader, opt, crit):
    losses, batch_time = Meter(), Meter()
    tick = time.time()
    for x, y in loader:
        out = model(x.cuda())
        loss = crit(out, y.cuda())
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.update(loss.item(), x.size(0))
        torch.cuda.synchronize()
        batch_time.update(time.time() - tick)
        tick = time.time()


# case: a reduced loss read on one path, a reduced auxiliary loss and its
# read on the other, a running total of the numbers before the synchronize
def train_distributed(engine, loader, world, aux_on):
    seen = 0.0
    for batch in loader:
        loss, aux = engine(batch.cuda())
        engine.backward(loss)
        engine.step()
        dist.all_reduce(loss)
        mean = loss.item() / world
        if aux_on:
            dist.all_reduce(aux)
            seen += aux.item() / world
        torch.cuda.synchronize()
        print(mean, seen)


if __name__ == "__main__":
    train(None, [], None, None)
    train_distributed(None, [], 1, False)
