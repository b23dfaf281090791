# TPF016: casts whose target dtype differs from what the tensor holds, discarded.
# Written as a resampling utility and a buffer class, not a training loop.
import torch
import torch.nn.functional as F


# case: the timm shape: computed in fp32, meant to go back to the input's dtype
def resample_table(table, new_len):
    orig_dtype = table.dtype
    table = table.float()
    side = int(new_len ** 0.5)
    resized = F.interpolate(table.permute(1, 0).unsqueeze(0), size=side * side, mode="linear")
    resized = resized.squeeze(0).permute(1, 0)
    resized.to(orig_dtype)  # expect: TPF016
    return resized


# case: a half-precision buffer cast to fp32 and dropped
def accumulate(n):
    acc = torch.zeros(n, dtype=torch.float16)
    acc.float()  # expect: TPF016
    acc += torch.ones(n, dtype=torch.float16)
    return acc


# case: the dtype is known on one branch only
def mixed(n, wide):
    if wide:
        buf = torch.ones(n, dtype=torch.float64)
    else:
        buf = torch.ones(n, dtype=torch.float32)
    buf.to(torch.float32)  # expect: TPF016
    return buf.sum()


# case: same dtype, but a device is asked for too
def moved(n, device):
    ids = torch.arange(n, dtype=torch.int64)
    ids.to(device, torch.int64)  # expect: TPF016
    return ids[: n // 2]
