# TPF009 device_sync_in_inner_loop: a synchronize every step whose only
# following host copy runs at a logging interval: the stall is paid on the
# other steps.
import time

import torch
import torch.nn.functional as F

torch.manual_seed(0)


# case: the loss is read only every 100 steps
def train_epoch(model, loader, opt):
    end = time.time()
    for step, (x, y) in enumerate(loader):
        loss = F.cross_entropy(model(x.cuda()), y.cuda())
        opt.zero_grad()
        loss.backward()
        opt.step()
        torch.cuda.synchronize()  # expect: TPF009
        took = time.time() - end
        if step % 100 == 0:
            print(step, took, loss.item())
        end = time.time()


if __name__ == "__main__":
    train_epoch(None, [], None)
