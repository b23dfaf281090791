#!/usr/bin/python3
"""Measure the peak heap bytes of one steady-state training step of a fixture.

Issue 19's ground truth for the estimator's timeline. Run with Debian's
python3-torch (CPU): `/usr/bin/python3 tools/measure_peak.py
test/memory/scripts/*.py` writes test/memory/ground_truth/peak/<script>.json.

For each script the tool builds tools/malloc_shim.c with `cc` into /tmp and
re-runs itself under `LD_PRELOAD` of it, so every malloc/free of the process
(torch's CPU allocator calls posix_memalign/free per tensor storage) moves a
live-bytes counter by the block's malloc_usable_size. In the child it:

  1. imports the fixture, builds it with its argparse defaults, takes one
     batch and runs one warm `train_step` (gradients and optimizer state now
     exist, as in every later step; torch 1.13's zero_grad keeps .grad);
  2. counts the tensors resident at the step's start exactly (parameters,
     buffers, .grad, optimizer state, the batch; each storage once). The
     rest of the live heap (Python, libtorch's own tables) is the baseline;
  3. resets the shim's peak and runs a second `train_step`, with marks at
     every `Tensor.backward`, `torch.autograd.backward` and optimizer `step`:
     each stretch between marks is a phase (forward, backward, step, and
     after_backward for what runs between a backward and the next mark)
     with its own peak.

A phase's `peak_bytes` is its peak of live heap minus the baseline: the
tensor bytes alive at its worst moment, which is what the estimator's
allocated peak predicts. The step's `peak_bytes` is the largest of them.
Raw counter values are kept too. Nothing in the C++ build runs this.
"""
import argparse
import ctypes
import gc
import json
import os
import pathlib
import subprocess
import sys
import tempfile

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SHIM_SRC = os.path.join(REPO, "tools", "malloc_shim.c")
DEFAULT_OUT = os.path.join(REPO, "test", "memory", "ground_truth", "peak")


def build_shim():
    out = os.path.join(tempfile.gettempdir(), f"tpf-measure-peak-{os.getuid()}")
    os.makedirs(out, exist_ok=True)
    so = os.path.join(out, "malloc_shim.so")
    subprocess.run(["cc", "-O2", "-shared", "-fPIC", "-o", so, SHIM_SRC], check=True)
    return so


# ------------------------------------------------------------------ child

def child(path):
    import torch
    sys.path.insert(0, os.path.join(REPO, "tools"))
    from measure_memory import load_fixture  # noqa: E402 (same fixture convention)

    shim = ctypes.CDLL(None)
    for fn in ("tpf_shim_live", "tpf_shim_peak"):
        getattr(shim, fn).restype = ctypes.c_int64
    torch.set_num_threads(1)
    torch.manual_seed(0)
    name, module = load_fixture(path)
    if [f for f in getattr(module, "REQUIRES", []) if not hasattr(torch.nn.functional, f)]:
        return {"script": os.path.basename(path), "unmeasured": f"torch {torch.__version__} lacks "
                + ", ".join(getattr(module, "REQUIRES", []))}
    args = module.parse_args([])
    s = module.build(args)
    batch = next(iter(s.loader))
    for m in s.models.values():
        m.train()
    torch.manual_seed(0)
    module.train_step(s, batch)  # warm: .grad and optimizer state exist from here on

    def resident():
        seen, total = set(), 0

        def add(t):
            nonlocal total
            if torch.is_tensor(t) and t.device.type == "cpu":
                st = t.storage()
                key = (st.data_ptr(), st.nbytes())
                if key not in seen and st.nbytes():
                    seen.add(key)
                    total += st.nbytes()
        for m in s.models.values():
            for p in m.parameters():
                add(p)
                if p.grad is not None:
                    add(p.grad)
            for b in m.buffers():
                add(b)
        for o in s.optimizers.values():
            for st in o.state.values():
                for v in st.values():
                    add(v)
        for t in batch if isinstance(batch, (list, tuple)) else [batch]:
            add(t)
        return total

    gc.collect()
    tensors = resident()
    live0 = shim.tpf_shim_live()
    baseline = live0 - tensors
    phases = []
    current = ["forward"]

    def mark(next_phase):
        phases.append({"phase": current[0], "peak_bytes": shim.tpf_shim_peak() - baseline,
                       "end_bytes": shim.tpf_shim_live() - baseline})
        current[0] = next_phase
        shim.tpf_shim_reset_peak()

    def around(fn, phase):
        def wrapped(*a, **k):
            outer = current[0]
            if outer in ("backward", "step"):  # nested (backward inside a closure): one phase
                return fn(*a, **k)
            mark(phase)
            try:
                return fn(*a, **k)
            finally:
                # What runs between a backward and the optimizer step (clipping,
                # a second loss's forward in a GAN) is not the step's forward.
                mark("after_backward" if phase == "backward" else "forward")
        return wrapped

    tensor_backward, autograd_backward = torch.Tensor.backward, torch.autograd.backward
    torch.Tensor.backward = around(tensor_backward, "backward")
    torch.autograd.backward = around(autograd_backward, "backward")
    for o in s.optimizers.values():
        o.step = around(o.step, "step")
    torch.manual_seed(1)
    shim.tpf_shim_reset_peak()
    module.train_step(s, batch)
    mark("end")
    torch.Tensor.backward, torch.autograd.backward = tensor_backward, autograd_backward
    # The stretch after the last step (loss.item()) allocates nothing of note.
    phases = [p for p in phases if not (p is phases[-1] and len(phases) > 1 and p["phase"] != "step"
                                        and p["peak_bytes"] <= phases[-2]["end_bytes"] + 4096)]
    by_phase = {}
    for p in phases:
        by_phase[p["phase"]] = max(by_phase.get(p["phase"], 0), p["peak_bytes"])
    return {
        "script": os.path.basename(path),
        "torch_version": torch.__version__,
        "device": "cpu",
        "num_threads": torch.get_num_threads(),
        "resident_tensor_bytes": tensors,
        "heap_baseline_bytes": baseline,
        "peak_bytes": max(p["peak_bytes"] for p in phases),
        "phase_peaks": by_phase,
        "phases": phases,
    }


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("scripts", nargs="+", help="fixture scripts (test/memory/scripts/*.py)")
    ap.add_argument("--out", default=DEFAULT_OUT, help="output directory (default: %(default)s)")
    ap.add_argument("--stdout", action="store_true", help="print JSON instead of writing files")
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    opts = ap.parse_args(argv)
    if opts.child:
        json.dump(child(opts.scripts[0]), sys.stdout)
        return
    so = build_shim()
    env = dict(os.environ, LD_PRELOAD=so, OMP_NUM_THREADS="1")
    for path in opts.scripts:
        proc = subprocess.run([sys.executable, os.path.abspath(__file__), "--child", path], env=env,
                              capture_output=True, text=True)
        if proc.returncode:
            sys.stderr.write(proc.stderr)
            raise SystemExit(f"{path}: the measuring child failed ({proc.returncode})")
        result = json.loads(proc.stdout)
        name = pathlib.Path(path).stem
        if opts.stdout:
            print(json.dumps(result, indent=2))
        else:
            pathlib.Path(opts.out).mkdir(parents=True, exist_ok=True)
            (pathlib.Path(opts.out) / f"{name}.json").write_text(json.dumps(result, indent=2) + "\n")
        print(f"{name}: peak {result.get('peak_bytes', 'unmeasured')} "
              f"{result.get('phase_peaks', '')}", file=sys.stderr)


if __name__ == "__main__":
    main()
