# TPF009 device_sync_in_inner_loop: a kernel benchmark times a forward and
# a backward with CUDA events and synchronizes each iteration to read
# them; it steps no optimizer, so the loop is no training step and the
# synchronize is the measurement itself.
import time

import torch

torch.manual_seed(0)


def fused_matmul(a, b):
    return (a @ b).relu()


# case: CUDA-event timings of a forward and an autograd.grad backward
def bench_events(rounds=10):
    lat_fwd, lat_bwd = [], []
    begin = torch.cuda.Event(enable_timing=True)
    finish = torch.cuda.Event(enable_timing=True)
    for _ in range(rounds):
        a = torch.randn(512, 512, device="cuda", requires_grad=True)
        b = torch.randn(512, 512, device="cuda")
        begin.record()
        out = fused_matmul(a, b)
        finish.record()
        torch.cuda.synchronize()
        lat_fwd.append(begin.elapsed_time(finish))
        begin.record()
        (da,) = torch.autograd.grad(out.sum(), (a,))
        finish.record()
        torch.cuda.synchronize()
        lat_bwd.append(begin.elapsed_time(finish))
    return lat_fwd, lat_bwd


# case: wall-clock timing of a backward with perf_counter
def bench_wall(rounds=10):
    took = []
    for _ in range(rounds):
        a = torch.randn(256, 256, device="cuda", requires_grad=True)
        t0 = time.perf_counter()
        fused_matmul(a, a).sum().backward()
        torch.cuda.synchronize()
        took.append(time.perf_counter() - t0)
    return took


if __name__ == "__main__":
    print(bench_events(), bench_wall())
