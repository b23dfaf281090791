# TPF009 device_sync_in_inner_loop: a loop that times itself with CUDA
# events but also steps an optimizer is a training loop: each
# synchronize stalls a training step.
import torch
import torch.nn.functional as F

torch.manual_seed(0)


# case: the timed loop steps the optimizer
def timed_training(model, loader, opt):
    begin = torch.cuda.Event(enable_timing=True)
    finish = torch.cuda.Event(enable_timing=True)
    times = []
    for x, y in loader:
        begin.record()
        loss = F.mse_loss(model(x.cuda()), y.cuda())
        opt.zero_grad()
        loss.backward()
        opt.step()
        finish.record()
        torch.cuda.synchronize()  # expect: TPF009
        times.append(begin.elapsed_time(finish))
    return times


if __name__ == "__main__":
    timed_training(None, [], None)
