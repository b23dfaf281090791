# tpf: target=h100
"""An A/B benchmark in the style of accelerate's fp8 benchmarks: one function trains a baseline
model, a second one trains a wider model under accelerate, and each returns only its metrics, so
the two never live at once. The loss comes from a library the interpreter does not model, so
neither step is followed and one step is synthesized. The estimate counts the wider run alone
(4,239,370 parameters, not the sum with the baseline's 1,059,850) and says in a note which ones it
left out. The `assert ... is model` on an attribute of the accelerator that the interpreter does
not model is not taken as false."""
import kornia
import torch
import torch.nn as nn
from accelerate import Accelerator
from torch.utils.data import DataLoader, TensorDataset


def make(width):
    model = nn.Sequential(nn.Linear(1024, width), nn.GELU(), nn.Linear(width, 10))
    return model, torch.optim.AdamW(model.parameters(), lr=3e-4)


def loader():
    ds = TensorDataset(torch.randn(10_000, 1024), torch.randint(0, 10, (10_000,)))
    return DataLoader(ds, batch_size=128, shuffle=True)


def run_baseline():
    model, opt = make(1024)
    model.cuda()
    for x, y in loader():
        loss = kornia.losses.focal_loss(model(x.cuda()), y.cuda(), alpha=0.25, reduction="mean")
        loss.backward()
        opt.step()
        opt.zero_grad()
    return {"loss": loss.item()}


def run_accelerate():
    acc = Accelerator(mixed_precision="bf16")
    model, opt = make(4096)
    model, opt, train = acc.prepare(model, opt, loader())
    assert acc.deepspeed_engine_wrapped is None or acc.deepspeed_engine_wrapped.engine is model
    for x, y in train:
        loss = kornia.losses.focal_loss(model(x), y, alpha=0.25, reduction="mean")
        acc.backward(loss)
        opt.step()
        opt.zero_grad()
    return {"loss": loss.item()}


if __name__ == "__main__":
    print(run_baseline(), run_accelerate())
