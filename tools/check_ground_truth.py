#!/usr/bin/python3
"""Re-measure the memory fixtures and diff against the committed ground truth.

    /usr/bin/python3 tools/check_ground_truth.py [SCRIPT ...]

Runs tools/measure_memory.py on each fixture (default: every
test/memory/scripts/*.py), then compares with test/memory/ground_truth/*.json:
integers (bytes, counts) must match exactly; floats (losses, hyperparameters)
within a relative 1e-3, since BLAS thread counts change the last bits; the
timing and thread count are not compared. Prints each difference and the time
taken; exits 1 if anything differs or a ground-truth file is missing.

About 40 s for all 14 fixtures on one core of Debian's CPU torch, so CI does
not run it; run it after changing a fixture or the measuring tool, and
regenerate with measure_memory.py when a change is intended.
"""
import argparse
import glob
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import measure_memory  # noqa: E402  (same folder; needs the path tweak above)

REPO = measure_memory.REPO
SCRIPTS = os.path.join(REPO, "test", "memory", "scripts")
# Fields that describe the run, not the model.
IGNORED = {"seconds", "num_threads"}
FLOAT_RTOL = 1e-3


def diff(expected, actual, path, out):
    if isinstance(expected, dict) and isinstance(actual, dict):
        for k in sorted(set(expected) | set(actual)):
            if k in IGNORED:
                continue
            if k not in actual:
                out.append(f"{path}.{k}: missing (expected {expected[k]!r})")
            elif k not in expected:
                out.append(f"{path}.{k}: unexpected {actual[k]!r}")
            else:
                diff(expected[k], actual[k], f"{path}.{k}", out)
    elif isinstance(expected, list) and isinstance(actual, list):
        if len(expected) != len(actual):
            out.append(f"{path}: {len(actual)} items, expected {len(expected)}")
        for i, (e, a) in enumerate(zip(expected, actual)):
            diff(e, a, f"{path}[{i}]", out)
    elif isinstance(expected, float) or isinstance(actual, float):
        if not isinstance(actual, (int, float)) or isinstance(actual, bool) or \
                abs(actual - expected) > FLOAT_RTOL * max(abs(expected), 1e-12):
            out.append(f"{path}: {actual!r}, expected {expected!r}")
    elif expected != actual:
        out.append(f"{path}: {actual!r}, expected {expected!r}")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("scripts", nargs="*", help="fixtures (default: all of test/memory/scripts)")
    opts = ap.parse_args(argv)
    scripts = opts.scripts or sorted(glob.glob(os.path.join(SCRIPTS, "*.py")))
    started = time.time()
    failed = 0
    for path in scripts:
        t0 = time.time()
        name, actual = measure_memory.measure(path)
        gt_path = os.path.join(measure_memory.DEFAULT_OUT, name + ".json")
        problems = []
        if not os.path.exists(gt_path):
            problems.append(f"no ground truth at {os.path.relpath(gt_path, REPO)}")
        else:
            with open(gt_path) as f:
                diff(json.load(f), json.loads(json.dumps(actual)), name, problems)
        status = "ok" if not problems else "DIFFERS"
        print(f"{name}: {status} ({time.time() - t0:.1f} s)")
        for p in problems:
            print(f"  {p}")
        failed += bool(problems)
    print(f"{len(scripts) - failed} passed, {failed} failed ({time.time() - started:.1f} s)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
