#!/usr/bin/python3
"""Measure the peak memory of an inference fixture with real torch and compare
it with tpf-analyze's inference estimate (issue 22).

Runs with Debian's python3-torch (CPU):

    /usr/bin/python3 tools/measure_infer.py build/tools/tpf-analyze \
        test/golden/memory/gpt2_decode_loop.py test/golden/memory/llama_decode_loop.py

Each fixture runs in a fresh process (one thread). A TorchDispatchMode reads
glibc's mallinfo2() (heap bytes in use plus mmapped bytes) after every torch
op, so the peak is the op's inputs and output alive together, as on the GPU
under no_grad; the bytes in use before the script ran are subtracted.
torch's CPU allocator takes every tensor from malloc, so the count is the
tensors' bytes plus a little of Python's own.

The estimate compared is the one tpf-analyze prints for `--target t4`
(JSON): its peak without the CUDA context and the allocator's slack, the
components weights + KV cache + activations (the largest op's live tensors
at the peak). Exit 1 when it is more than 10% from the measurement. For
reference the table also shows weights + the full KV cache + the prefill's
largest op: that sum misses what a decode step holds beside the cache (the
old cache a caller keeps while the forward builds the new one, the repeated
KV heads of grouped-query attention), which is why the estimate's peak is
the larger of prefill and last step instead.
"""
import ctypes
import json
import os
import runpy
import subprocess
import sys

MIB = 1024 * 1024


class _MallInfo2(ctypes.Structure):
    _fields_ = [(name, ctypes.c_size_t) for name in
                ("arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks", "fsmblks", "uordblks", "fordblks",
                 "keepcost")]


def _in_use(libc):
    m = libc.mallinfo2()
    return m.uordblks + m.hblkhd


def measure_child(path):
    """Runs the fixture in this process and prints its peak bytes (JSON)."""
    import torch
    from torch.utils._python_dispatch import TorchDispatchMode

    torch.set_num_threads(1)
    libc = ctypes.CDLL("libc.so.6")
    libc.mallinfo2.restype = _MallInfo2
    torch.manual_seed(0)
    state = {"peak": 0}

    class Peak(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            out = func(*args, **(kwargs or {}))
            state["peak"] = max(state["peak"], _in_use(libc))
            return out

    base = _in_use(libc)
    sys.stdout = open(os.devnull, "w")  # the fixture prints its output's shape
    try:
        with Peak():
            runpy.run_path(path, run_name="__main__")
    finally:
        sys.stdout = sys.__stdout__
    print(json.dumps({"peak_bytes": state["peak"] - base}))


def estimate(analyzer, path):
    out = subprocess.run([analyzer, "--target", "t4", "--format", "json", "--fail-on", "never", path],
                         capture_output=True, text=True, check=True).stdout
    e = json.loads(out)["estimates"][0]
    c, inf = e["components"], e["inference"]
    at_peak = c["weights"] + c["kv_cache"] + c["activations"]
    summed = c["weights"] + inf["kv_cache"]["bytes"] + inf["prefill_bytes"]
    return c, inf, at_peak, summed


def main(argv):
    if len(argv) >= 3 and argv[1] == "--child":
        measure_child(argv[2])
        return 0
    if len(argv) < 3:
        print(__doc__)
        return 2
    analyzer, paths = argv[1], argv[2:]
    ok = True
    print(f"{'fixture':24} {'measured':>10} {'estimate':>10} {'diff':>7} {'W+KV+pre':>10} {'diff':>7}"
          f"   weights / KV cache / activations (MiB)")
    for p in paths:
        child = subprocess.run([sys.executable, __file__, "--child", p], capture_output=True, text=True, check=True)
        measured = json.loads(child.stdout.strip().splitlines()[-1])["peak_bytes"]
        c, inf, at_peak, summed = estimate(analyzer, p)
        d1 = (at_peak - measured) / measured
        d2 = (summed - measured) / measured
        ok = ok and abs(d1) <= 0.10
        print(f"{os.path.basename(p):24} {measured / MIB:9.2f}M {at_peak / MIB:9.2f}M {d1:+7.1%} {summed / MIB:9.2f}M "
              f"{d2:+7.1%}   {c['weights'] / MIB:.2f} / {c['kv_cache'] / MIB:.2f} / {c['activations'] / MIB:.2f}"
              f" at the {inf['peak_at']}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
