# TPF001 must stay silent: a test suite's module (named *_test.py, never
# run as a program) runs a few fixed iterations and keeps each output,
# graph and all, to compare it with a reference run; nothing grows.
import torch


def run_schedule(model, inputs):
    outputs = []
    for x in inputs:
        out = model(x)
        out.sum().backward()
        outputs.append(out)
    return outputs


def check_matches_reference():
    torch.manual_seed(0)
    model = torch.nn.Linear(4, 4)
    inputs = [torch.randn(2, 4) for _ in range(3)]
    got = run_schedule(model, inputs)
    want = [model(x) for x in inputs]
    assert all(torch.allclose(a, b) for a, b in zip(got, want))
