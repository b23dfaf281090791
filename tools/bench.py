#!/usr/bin/env python3
"""Frontend benchmark: tpf-analyze's tokenize+parse vs CPython's ast.parse.

Usage: bench.py [--tpf-bench BIN] [--repeat N] DIR_OR_FILE...
Both sides read every file into memory first and time only parsing, single
thread, best of N runs, in the same invocation. ast.parse runs in the
fastest CPython on the machine (bench_baseline.py: Debian's /usr/bin/python3
first), not in the interpreter that runs this script; its path and version
are printed. Prints files/s, MB/s and the
ratio. This is a benchmark, not a test: it never fails on speed.
"""
import argparse
import ast
import json
import os
import subprocess
import sys
import tempfile
import warnings

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_baseline import baseline_python  # noqa: E402

# Run by the baseline interpreter: reads the listed files, then times
# ast.parse of all of them, best of N; prints the seconds.
PARSE_TIMER = r"""
import ast, sys, time, warnings
warnings.simplefilter("ignore")
srcs = []
for p in open(sys.argv[1]).read().split("\n"):
    with open(p, "rb") as f:
        srcs.append(f.read())
best = float("inf")
for _ in range(int(sys.argv[2])):
    t0 = time.perf_counter()
    for s in srcs:
        ast.parse(s)
    best = min(best, time.perf_counter() - t0)
print(best)
"""


def py_files(paths):
    for p in paths:
        if os.path.isfile(p):
            yield p
            continue
        for root, dirs, names in os.walk(p):
            dirs.sort()
            for n in sorted(names):
                if n.endswith(".py"):
                    yield os.path.join(root, n)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tpf-bench", default="build/tools/tpf-bench")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("paths", nargs="+")
    a = ap.parse_args()

    # Only files CPython parses, so both sides do the same work.
    sources = []
    for path in py_files(a.paths):
        with open(path, "rb") as f:
            src = f.read()
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                ast.parse(src)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            continue
        sources.append((path, src))
    total = sum(len(s) for _, s in sources)

    py, py_version = baseline_python()
    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as lst:
        lst.write("\n".join(p for p, _ in sources))
        name = lst.name
    try:
        py_out = subprocess.run([py, "-c", PARSE_TIMER, name, str(a.repeat)], capture_output=True,
                                text=True, check=True)
        py_s = float(py_out.stdout)
        out = subprocess.run([a.tpf_bench, name, str(a.repeat)], capture_output=True, check=True)
    finally:
        os.unlink(name)
    res = json.loads(out.stdout)
    tpf_s = res["seconds"]

    mb = total / 1e6
    n = len(sources)
    print(f"files: {n}  bytes: {total}  (best of {a.repeat}, single thread; "
          f"ast.parse of {py}, {py_version})")
    print(f"{'':14}{'seconds':>10}{'files/s':>12}{'MB/s':>10}")
    print(f"{'ast.parse':14}{py_s:10.3f}{n / py_s:12.0f}{mb / py_s:10.2f}")
    print(f"{'tpf-analyze':14}{tpf_s:10.3f}{n / tpf_s:12.0f}{mb / tpf_s:10.2f}")
    print(f"ratio: tpf-analyze is {py_s / tpf_s:.1f}x faster than ast.parse "
          f"(target >= 5x); tpf parse failures: {res['failed']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
