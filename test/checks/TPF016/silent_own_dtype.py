# TPF016 must stay silent: casts to the dtype the tensor already has return
# an equal tensor, so discarding them loses nothing.
import torch


# case: a factory given dtype=, cast to that dtype (an alias of it)
def zeros_fp32(n):
    x = torch.zeros(n, dtype=torch.float32)
    x.to(torch.float32)
    x.float()
    x.to(dtype=torch.float)
    return x * 2


# case: cast once and assigned, then cast again to the same dtype
def halves(n):
    h = torch.randn(n).half()
    h.half()
    h.to(torch.float16)
    return h.sum()


# case: both branches agree on the dtype
def counts(n, flag):
    if flag:
        c = torch.ones(n, dtype=torch.long)
    else:
        c = torch.zeros(n, dtype=torch.int64)
    c.to(torch.int64)
    return c.sum()


# case: a boolean mask built with dtype=, at module level
mask = torch.full((8,), True, dtype=torch.bool)
mask.to(torch.bool)
print(mask.any())
