#!/usr/bin/python3
"""Measure the memory ground truth of a fixture training script with real torch.

Runs with Debian's python3-torch (CPU): `/usr/bin/python3 tools/measure_memory.py
test/memory/scripts/gpt_explicit.py`. For each script it imports the module
(nothing runs: fixtures guard main), builds the model, optimizer and loader
with the script's own argparse defaults, and measures

  - parameters: exact count and bytes per model, deduplicated by storage so a
    tied weight counts once; buffers separately;
  - activations: every tensor autograd saves for backward during one forward
    pass (`torch.autograd.graph.saved_tensors_hooks`), deduplicated by storage
    and split into activations proper, batch inputs, parameters (a Linear
    saves its weight: that is weight memory, not activation memory), buffers,
    and autocast copies of parameters; with a per-module breakdown;
  - gradients and optimizer state after one real train step.

It writes test/memory/ground_truth/<script>.json (or --out DIR). The fixture
convention is in test/memory/README.md. tpf-analyze never runs this: its
tests read the committed JSON.
"""
import argparse
import collections
import importlib.util
import json
import os
import platform
import sys
import time
import weakref

import torch

# Autograd nodes that only re-view their input. A saved tensor reached from a
# parameter's autocast copy through these is still that copy (a Linear under
# autocast saves `cast(weight).t()`).
VIEW_NODES = {"TBackward0", "ViewBackward0", "ExpandBackward0", "PermuteBackward0",
              "TransposeBackward0", "UnsqueezeBackward0", "SqueezeBackward0",
              "SqueezeBackward1", "ReshapeAliasBackward0", "UnsafeViewBackward0",
              "AliasBackward0", "SliceBackward0", "SelectBackward0"}
# How far to follow view nodes; real view chains on a weight are 1-2 long.
MAX_VIEW_DEPTH = 6

# What these functional calls save is a dropout mask. On CPU (what this tool
# runs) dropout keeps a float mask of the input's dtype; CUDA's fused kernel
# keeps a bool mask (1 byte/element). Recorded apart so a comparison can
# rescale it. Wrapping the module attribute catches nn.Dropout* and
# nn.MultiheadAttention's attention dropout, which look these names up in
# torch.nn.functional at call time; the dropout inside nn.LSTM's C++ kernel
# is not caught and stays in activation_bytes.
DROPOUT_FUNCTIONS = ("dropout", "dropout1d", "dropout2d", "dropout3d", "alpha_dropout")

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_OUT = os.path.join(REPO, "test", "memory", "ground_truth")


def storage_key(t):
    """(data_ptr, nbytes) of the tensor's whole storage: what memory it pins."""
    s = t.storage()  # torch 1.13: TypedStorage; nbytes() is the untyped size
    return s.data_ptr(), s.nbytes()


def load_fixture(path):
    name = os.path.splitext(os.path.basename(path))[0]
    spec = importlib.util.spec_from_file_location(f"tpf_fixture_{name}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    for fn in ("parse_args", "build", "train_step"):
        if not hasattr(module, fn):
            raise SystemExit(f"{path}: fixture lacks `{fn}` (see test/memory/README.md)")
    return name, module


def unique_params(models):
    """Parameters of all models, each storage once, in registration order."""
    seen, out = set(), []
    for model in models.values():
        for p in model.parameters():
            key = storage_key(p)
            if key not in seen:
                seen.add(key)
                out.append(p)
    return out


def census(models):
    result, total_params, total_bytes, trainable = {}, 0, 0, 0
    seen = set()
    for name, model in models.items():
        n = b = nt = 0
        for p in model.parameters():
            key = storage_key(p)
            if key in seen:
                continue  # tied or shared with an earlier model
            seen.add(key)
            n += p.numel()
            b += p.numel() * p.element_size()
            nt += p.numel() if p.requires_grad else 0
        buffers = [x for x in model.buffers()]
        result[name] = {
            "class": type(model).__name__,
            "params": n,
            "param_bytes": b,
            "trainable_params": nt,
            "param_tensors": sum(1 for _ in model.parameters()),
            "buffers": sum(x.numel() for x in buffers),
            "buffer_bytes": sum(x.numel() * x.element_size() for x in buffers),
        }
        total_params += n
        total_bytes += b
        trainable += nt
    return result, total_params, total_bytes, trainable


def autocast_copy_of_param(t, param_ids):
    """True when `t` is (a view of) an autocast cast of a parameter."""
    node, depth = t.grad_fn, 0
    while node is not None and depth <= MAX_VIEW_DEPTH:
        name = type(node).__name__
        if name.startswith("ToCopyBackward"):
            nxt = node.next_functions[0][0] if node.next_functions else None
            var = getattr(nxt, "variable", None)
            return var is not None and id(var) in param_ids
        if name not in VIEW_NODES or not node.next_functions:
            return False
        node, depth = node.next_functions[0][0], depth + 1
    return False


class ModuleTracker:
    """Knows which module's forward is running, for the per-module breakdown."""

    def __init__(self, models):
        self.stack, self.handles, self.classes = [], [], {}
        for mname, model in models.items():
            for qual, mod in model.named_modules():
                full = mname if not qual else f"{mname}.{qual}"
                self.classes[full] = type(mod).__name__
                self.handles.append(mod.register_forward_pre_hook(self._push(full)))
                self.handles.append(mod.register_forward_hook(self._pop()))
        self.order = {n: i for i, n in enumerate(self.classes)}

    def _push(self, name):
        def hook(_mod, _inp):
            self.stack.append(name)
        return hook

    def _pop(self):
        def hook(_mod, _inp, _out):
            self.stack.pop()
        return hook

    def current(self):
        return self.stack[-1] if self.stack else "<top>"

    def remove(self):
        for h in self.handles:
            h.remove()


def measure_phase(fn, s, batch, models, tracker):
    params = unique_params(models)
    param_keys = {storage_key(p) for p in params}
    param_ids = {id(p) for m in models.values() for p in m.parameters()}
    buffer_keys = {storage_key(b) for m in models.values() for b in m.buffers()}
    input_keys = {storage_key(t) for t in batch if torch.is_tensor(t)}
    records = []  # (weakref to the saved tensor, storage key, category, module, ...)
    in_dropout = [0]

    def pack(t):
        key = storage_key(t)
        if key in param_keys:
            cat = "param_saved"
        elif key in buffer_keys:
            cat = "buffer_saved"
        elif key in input_keys:
            cat = "input_saved"
        elif autocast_copy_of_param(t, param_ids):
            cat = "autocast_param_copy"
        else:
            cat = "activation"
        records.append((weakref.ref(t), key, cat, tracker.current(), t.dtype, t.element_size(),
                        in_dropout[0] > 0))
        return t

    def counting(f):
        def wrapper(*args, **kwargs):
            in_dropout[0] += 1
            try:
                return f(*args, **kwargs)
            finally:
                in_dropout[0] -= 1
        return wrapper

    functional = torch.nn.functional
    originals = {n: getattr(functional, n) for n in DROPOUT_FUNCTIONS if hasattr(functional, n)}
    try:
        for n, f in originals.items():
            setattr(functional, n, counting(f))
        with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
            out = fn(s, batch)
    finally:
        for n, f in originals.items():
            setattr(functional, n, f)
    # Only what the graph still holds counts: a branch whose graph was freed
    # during the forward (a detached intermediate) pins nothing at backward.
    totals = collections.Counter()
    by_module = collections.Counter()
    by_dtype = collections.Counter()
    dropout_elements = 0
    seen = set()
    for ref, key, cat, mod, dtype, esize, dropout in records:
        if ref() is None or key in seen:
            continue
        seen.add(key)
        totals[cat] += key[1]
        if cat == "activation":
            by_module[mod] += key[1]
            by_dtype[str(dtype).replace("torch.", "")] += key[1]
            if dropout:
                totals["dropout_mask"] += key[1]
                dropout_elements += key[1] // esize
    losses = out if isinstance(out, dict) else {"loss": out}
    result = {
        "activation_bytes": totals["activation"],
        "input_saved_bytes": totals["input_saved"],
        "param_saved_bytes": totals["param_saved"],
        "buffer_saved_bytes": totals["buffer_saved"],
        "autocast_param_copy_bytes": totals["autocast_param_copy"],
        "dropout_mask_bytes": totals["dropout_mask"],
        "dropout_mask_elements": dropout_elements,
        "saved_tensor_count": len(records),
        "unique_storages": len(seen),
        "activation_bytes_by_dtype": dict(sorted(by_dtype.items())),
        "activation_bytes_by_module": [
            {"module": m, "class": tracker.classes.get(m, ""), "bytes": b}
            for m, b in sorted(by_module.items(), key=lambda kv: tracker.order.get(kv[0], -1))
        ],
        "loss": {k: float(v.detach().float()) for k, v in losses.items()},
    }
    del out, losses, records
    return result


def measure_activations(s, batch, phases):
    tracker = ModuleTracker(s.models)
    out = {}
    for pname, fn in phases.items():
        for m in s.models.values():
            m.zero_grad(set_to_none=True)
        out[pname] = measure_phase(fn, s, batch, s.models, tracker)
    tracker.remove()
    for m in s.models.values():
        m.zero_grad(set_to_none=True)
    return out


def optimizer_census(optimizers):
    result, total, seen = {}, 0, set()
    for name, opt in optimizers.items():
        by_key = collections.Counter()
        for state in opt.state.values():
            for k, v in state.items():
                if torch.is_tensor(v):
                    key = storage_key(v)
                    if key not in seen:
                        seen.add(key)
                        by_key[k] += key[1]
        defaults = {k: v for k, v in opt.defaults.items()
                    if isinstance(v, (int, float, bool, str, type(None)))}
        result[name] = {
            "class": type(opt).__name__,
            "state_bytes": sum(by_key.values()),
            "state_bytes_by_key": dict(sorted(by_key.items())),
            "param_groups": len(opt.param_groups),
            "defaults": defaults,
        }
        total += sum(by_key.values())
    return result, total


def jsonable_args(args):
    return {k: v for k, v in sorted(vars(args).items())
            if isinstance(v, (int, float, bool, str, type(None)))}


def measure(path):
    started = time.time()
    torch.manual_seed(0)
    name, module = load_fixture(path)
    args = module.parse_args([])
    s = module.build(args)
    models, optimizers = s.models, s.optimizers
    per_model, params, param_bytes, trainable = census(models)
    batch = next(iter(s.loader))
    phases = getattr(module, "PHASES", None) or {"train": module.forward_loss}
    unsupported = [f for f in getattr(module, "REQUIRES", []) if not hasattr(torch.nn.functional, f)]

    for m in models.values():
        m.train()
    result = {
        "script": os.path.basename(path),
        "torch_version": torch.__version__,
        "python_version": platform.python_version(),
        "device": "cpu",
        "num_threads": torch.get_num_threads(),
        "args": jsonable_args(args),
        "batch_shapes": [list(t.shape) for t in batch if torch.is_tensor(t)],
        "models": per_model,
        "params": params,
        "param_bytes": param_bytes,
        "trainable_params": trainable,
        "buffer_bytes": sum(m["buffer_bytes"] for m in per_model.values()),
    }
    if unsupported:
        # e.g. F.scaled_dot_product_attention is torch>=2.0: the forward cannot
        # run here, so activations, gradients and optimizer state are left out
        # rather than measured on a substitute.
        result["unmeasured"] = {
            "reason": f"torch {torch.__version__} lacks torch.nn.functional."
                      + ", ".join(unsupported),
            "fields": ["activations", "gradient_bytes", "optimizers"],
        }
    else:
        result["activations"] = measure_activations(s, batch, phases)
        for vname, argv in getattr(module, "VARIANTS", {}).items():
            # The same script under other flags (e.g. checkpointing off):
            # activations only, the weights and optimizer are unchanged.
            torch.manual_seed(0)
            vargs = module.parse_args(list(argv))
            vs = module.build(vargs)
            for m in vs.models.values():
                m.train()
            result.setdefault("variants", {})[vname] = {
                "argv": list(argv),
                "params": census(vs.models)[1],
                "activations": measure_activations(vs, next(iter(vs.loader)), phases),
            }
            del vs
        torch.manual_seed(0)
        module.train_step(s, batch)
        grads, seen = 0, set()
        for p in unique_params(models):
            if p.grad is not None and storage_key(p.grad) not in seen:
                seen.add(storage_key(p.grad))
                grads += p.grad.numel() * p.grad.element_size()
        result["gradient_bytes"] = grads
        result["optimizers"], result["optimizer_state_bytes"] = optimizer_census(optimizers)
    result["seconds"] = round(time.time() - started, 2)
    return name, result


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("scripts", nargs="+", help="fixture scripts (test/memory/scripts/*.py)")
    ap.add_argument("--out", default=DEFAULT_OUT, help="output directory (default: %(default)s)")
    ap.add_argument("--stdout", action="store_true", help="print JSON instead of writing files")
    opts = ap.parse_args(argv)
    for path in opts.scripts:
        name, result = measure(path)
        text = json.dumps(result, indent=2, sort_keys=False) + "\n"
        if opts.stdout:
            sys.stdout.write(text)
        else:
            os.makedirs(opts.out, exist_ok=True)
            with open(os.path.join(opts.out, name + ".json"), "w") as f:
                f.write(text)
            print(f"{name}: {result['params']} params, {result['seconds']} s", file=sys.stderr)


if __name__ == "__main__":
    main()
