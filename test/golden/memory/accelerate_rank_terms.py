# tpf: target=h100
"""A per-process test script in accelerate's style: each process scales its input by a power of
its own index (`x ** (1 + accelerator.local_process_index)`), and only the main process builds and
checks a reference copy. On one GPU, the estimate's run, the process is the first and the main
one: index 0 and `is_main_process` True, as `torch.distributed.get_rank()` is 0. Both models live
together in the test: torch 1.13 counts 2 x 263,168 = 526,336 parameters."""
import torch
from accelerate import Accelerator, PartialState


class Scaler(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = torch.nn.Linear(512, 512)
        self.gain = torch.nn.Parameter(torch.ones(512))

    def forward(self, x, index):
        return self.proj(x ** (1 + index)) * self.gain


def grads_of(model, index, device):
    x = torch.randn(256, 512, device=device)
    model(x, index).mean().backward()
    return [p.grad for p in model.parameters()]


def main():
    accelerator = Accelerator()
    state = PartialState()
    model = accelerator.prepare(Scaler())
    got = grads_of(model, accelerator.local_process_index, accelerator.device)
    if state.is_main_process:
        reference = Scaler().to(accelerator.device)
        want = grads_of(reference, state.process_index, accelerator.device)
        for g, w in zip(got, want):
            torch.testing.assert_close(g, w)


if __name__ == "__main__":
    main()
