# TPF009 device_sync_in_inner_loop: a timing synchronize in a step that
# reads a tensor to the host every iteration through `float(...)`, here or
# in a helper of the file: that read waits for the same queue, so the
# synchronize adds no stall of its own.
import time

import torch
import torch.nn.functional as F

torch.manual_seed(11)


def depth_errors(pred, gt):
    valid = gt > 0
    diff = (pred[valid] - gt[valid]).abs()
    return {"mae": float(diff.mean()), "rmse": float(torch.sqrt((diff**2).mean()))}


# case: float() of the loss right after the timed region
def run_epoch(model, batches, opt, times):
    tick = time.perf_counter()
    for rgb, depth in batches:
        rgb, depth = rgb.cuda(), depth.cuda()
        pred = model(rgb)
        loss = F.l1_loss(pred, depth)
        opt.zero_grad()
        loss.backward()
        opt.step()
        torch.cuda.synchronize()
        times.append(time.perf_counter() - tick)
        running = float(loss)
        print(running)
        tick = time.perf_counter()


# case: a helper of the file reads every step, after both synchronizes
def run_epoch_metrics(model, batches, opt, log):
    for rgb, depth in batches:
        rgb, depth = rgb.cuda(), depth.cuda()
        torch.cuda.synchronize()
        start = time.time()
        pred = model(rgb)
        opt.zero_grad()
        F.mse_loss(pred, depth).backward()
        opt.step()
        torch.cuda.synchronize()
        log(time.time() - start, depth_errors(pred.detach(), depth))


if __name__ == "__main__":
    run_epoch(None, [], None, [])
