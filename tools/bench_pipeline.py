#!/usr/bin/env python3
"""Whole-pipeline benchmark (issue 8): tpf-analyze against CPython's bare
ast.parse and pyflakes, side by side in the same run, on the same files.

Usage: bench_pipeline.py [--tpf BIN] [--repeat N] [--quick] TREE...

For each tree, every tool runs in ONE process invocation over the same list
of files (those CPython parses), best wall time of --repeat runs, with the
child's peak RSS (os.wait4). Rows:
  ast.parse          read + ast.parse every file, in the fastest CPython here
                     (bench_baseline.py: Debian's /usr/bin/python3 first;
                     its path and version are printed)
  pyflakes           python3 -m pyflakes (Debian python3-pyflakes)
  tpf-analyze -j1    parse, IR, dataflow, all rules; one thread
  tpf --target -j1   the same plus the memory estimator for h100
  tpf-analyze -j2    all rules on two threads (scaling)
Then the scaling checks: one synthetic file at 1x, 10x, 100x its size, one
function with 1k / 10k / 100k statements, and a 1,000-line training script
end to end (process start included); and memory per file: the peak RSS of
one large file of real code (the trees' files concatenated, 16 MB) and of
300,000 small functions, over the file's size, beside ast.parse's.

`--memory [MB ...]` runs only the memory-per-file rows of issue 20: one
generated file per shape of tools/gen_big_file.py (many small functions, one
long function, many nn.Module classes) at each size (default 1, 4, 16 MB),
each with its peak RSS over its size and its CPU time (best of --repeat).

A benchmark, not a test: it prints numbers and the targets beside them and
never fails on speed (the exit status is non-zero only if a tool crashes).
"""
import argparse
import ast
import os
import shutil
import subprocess
import sys
import tempfile
import time
import warnings

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_baseline import baseline_python  # noqa: E402
import gen_big_file  # noqa: E402


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


def parseable(paths):
    out, total = [], 0
    warnings.simplefilter("ignore")
    for p in py_files(paths):
        with open(p, "rb") as f:
            src = f.read()
        try:
            ast.parse(src)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            continue
        out.append(p)
        total += len(src)
    return out, total


def timed(cmd):
    """Runs cmd once under GNU time; returns (wall s, CPU s, peak RSS MB, exit
    status). The peak RSS is GNU time's (Linux keeps a child's ru_maxrss
    across fork+exec, so a child of this large Python would report ours);
    the CPU time is os.wait4's, in microseconds (GNU time prints 10 ms
    steps), of GNU time and the command together (GNU time itself costs
    well under a millisecond)."""
    with tempfile.NamedTemporaryFile("r", suffix=".time") as out:
        t0 = time.perf_counter()
        p = subprocess.Popen(["/usr/bin/time", "-f", "%M", "-o", out.name] + cmd,
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        _, status, ru = os.wait4(p.pid, 0)
        wall = time.perf_counter() - t0
        p.returncode = os.waitstatus_to_exitcode(status)
        rss_kb = out.read().split()[-1]
    return wall, ru.ru_utime + ru.ru_stime, int(rss_kb) / 1024, p.returncode


def best(cmd, repeat, ok=(0, 1)):
    """Best wall and best CPU time of `repeat` runs, and the largest peak RSS."""
    walls, cpus, rss, rc = [], [], 0.0, 0
    for _ in range(repeat):
        w, c, r, rc = timed(cmd)
        if rc not in ok:
            raise RuntimeError(f"{cmd[0]} exited {rc}")
        walls.append(w)
        cpus.append(c)
        rss = max(rss, r)
    return min(walls), min(cpus), rss


AST_DRIVER = r"""
import ast, sys, warnings
warnings.simplefilter("ignore")
for p in open(sys.argv[1]).read().split("\n"):
    with open(p, "rb") as f:
        ast.parse(f.read())
"""


def pyflakes_python():
    for py in ("/usr/bin/python3", sys.executable):
        if os.path.exists(py) and subprocess.run([py, "-c", "import pyflakes"],
                                                 capture_output=True).returncode == 0:
            return py
    return None


def bench_tree(tpf, tree, repeat):
    files, total = parseable([tree])
    n, mb = len(files), total / 1e6
    tmp = tempfile.mkdtemp(prefix="tpf-bench-")
    try:
        lst = os.path.join(tmp, "files.txt")
        with open(lst, "w") as f:
            f.write("\n".join(files))
        drv = os.path.join(tmp, "parse_all.py")
        with open(drv, "w") as f:
            f.write(AST_DRIVER)
        py, py_version = baseline_python()
        rows = [("ast.parse", [py, drv, lst], (0,))]
        pf = pyflakes_python()
        if pf:
            rows.append(("pyflakes", [pf, "-m", "pyflakes"] + files, (0, 1)))
        base = [tpf, "--fail-on", "never", "--format", "concise", "--isolated"]
        rows += [("tpf-analyze -j1", base + ["-j", "1"] + files, (0,)),
                 ("tpf --target -j1", base + ["-j", "1", "--target", "h100"] + files, (0,)),
                 ("tpf-analyze -j2", base + ["-j", "2"] + files, (0,))]
        print(f"\n{tree}: {n} files, {mb:.1f} MB (best of {repeat}; one process per row; "
              "ratios on CPU time, which a shared machine disturbs less than wall time; "
              f"ast.parse of {py}, {py_version}; pyflakes of {pf})")
        print(f"{'':18}{'wall s':>8}{'CPU s':>8}{'files/s':>9}{'MB/s':>7}{'peak RSS':>11}{'vs ast.parse':>14}")
        res = {}
        for name, cmd, ok in rows:
            w, c, rss = best(cmd, repeat, ok)
            res[name] = (w, c, rss)
            ratio = res["ast.parse"][1] / c
            print(f"{name:18}{w:8.2f}{c:8.2f}{n / c:9.0f}{mb / c:7.2f}{rss:8.1f} MB{ratio:13.1f}x")
        base_cpu = res["ast.parse"][1]
        j1, j2 = res["tpf-analyze -j1"], res["tpf-analyze -j2"]
        print(f"targets: whole pipeline >= 5x ast.parse: {base_cpu / res['tpf --target -j1'][1]:.1f}x "
              f"with the estimator, {base_cpu / j1[1]:.1f}x rules only; peak RSS < 50 MB: "
              f"{res['tpf --target -j1'][2]:.1f} MB; -j2 wall speed-up {j1[0] / j2[0]:.2f}x (2 cores; "
              "only meaningful on an idle machine)")
    finally:
        shutil.rmtree(tmp)


# ---------------------------------------------------------------- scaling

UNIT = '''
class Block{i}(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.fc1 = nn.Linear(d, 4 * d)
        self.fc2 = nn.Linear(4 * d, d)
        self.norm = nn.LayerNorm(d)

    def forward(self, x):
        h = self.fc2(F.gelu(self.fc1(self.norm(x))))
        return x + h


def evaluate{i}(model, loader):
    model.eval()
    total, n = 0.0, 0
    with torch.no_grad():
        for x, y in loader:
            out = model(x.cuda())
            total += F.mse_loss(out, y.cuda()).item()
            n += 1
    model.train()
    return total / max(n, 1)


def train{i}(model, loader, opt, epochs=2):
    for epoch in range(epochs):
        for step, (x, y) in enumerate(loader):
            x, y = x.cuda(non_blocking=True), y.cuda(non_blocking=True)
            loss = F.mse_loss(model(x), y)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            if step % 100 == 0:
                print(epoch, step, loss.item())
'''

HEADER = '''import argparse
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset
'''

MAIN = '''
if __name__ == "__main__":
    p = argparse.ArgumentParser()
    p.add_argument("--batch-size", type=int, default=64)
    args = p.parse_args()
    torch.manual_seed(0)
    model = nn.Sequential(*[Block0(256) for _ in range(4)]).cuda()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    ds = TensorDataset(torch.randn(1024, 256), torch.randn(1024, 256))
    loader = DataLoader(ds, batch_size=args.batch_size, shuffle=True, num_workers=4, pin_memory=True)
    train0(model, loader, opt)
    print(evaluate0(model, loader))
'''


def synthetic(units):
    return HEADER + "".join(UNIT.format(i=i) for i in range(units)) + MAIN


def long_function(stmts):
    body = "".join(f"    v{i} = (a + {i}) * b\n    if v{i} > {i}:\n        a = a - 1\n"
                   f"    for k in range(3):\n        b = b + k\n" for i in range(stmts // 5))
    return "def f(a, b):\n" + body + "    return a + b\n"


def run_file(tpf, text, repeat, extra=()):
    with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as f:
        f.write(text)
        path = f.name
    try:
        return best([tpf, "--fail-on", "never", "--isolated", "-j", "1", *extra, path], repeat)
    finally:
        os.unlink(path)


def bench_scaling(tpf, repeat, quick):
    print("\nlinear growth: one synthetic training file (all rules + --target h100)")
    print(f"{'size':>8}{'lines':>9}{'bytes':>11}{'CPU s':>9}{'us/line':>9}{'peak RSS':>11}")
    sizes = (1, 10, 100) if not quick else (1, 10)
    for k in sizes:
        text = synthetic(12 * k)
        _, s, rss = run_file(tpf, text, repeat, ("--target", "h100"))
        lines = text.count("\n")
        print(f"{k:7}x{lines:9}{len(text):11}{s:9.3f}{1e6 * s / lines:9.1f}{rss:8.1f} MB")
    print("\nlinear growth: one function with thousands of statements and loops")
    print(f"{'statements':>11}{'CPU s':>9}{'us/stmt':>9}{'peak RSS':>11}")
    for n in ((1000, 10000, 100000) if not quick else (1000, 10000)):
        _, s, rss = run_file(tpf, long_function(n), repeat)
        print(f"{n:11}{s:9.3f}{1e6 * s / n:9.1f}{rss:8.1f} MB")
    units = 1
    while synthetic(units).count("\n") < 1000:
        units += 1
    text = synthetic(units)
    lines = text.count("\n")
    _, s, rss = run_file(tpf, text, max(repeat, 10), ("--target", "h100"))
    _, start, _ = best([tpf, "--version"], max(repeat, 10))
    print(f"\none {lines}-line training script end to end (rules + --target h100, process start "
          f"included, best CPU time): {1000 * s:.1f} ms, peak RSS {rss:.1f} MB (target < 10 ms); "
          f"process start alone (--version): {1000 * start:.1f} ms")


def concatenated(trees, limit):
    """The trees' files that CPython parses, concatenated up to `limit` bytes:
    one large file of real code."""
    out, total = [], 0
    for p in parseable(trees)[0]:
        try:
            with open(p, encoding="utf-8") as f:
                t = f.read()
        except UnicodeDecodeError:
            continue
        t += "" if t.endswith("\n") else "\n"
        out.append(t)
        total += len(t)
        if total > limit:
            break
    return "".join(out)


def bench_memory(tpf, trees, quick):
    """Peak RSS per file byte (issue 20: a small multiple of the file), beside
    CPython's ast.parse of the same file, which holds only the tree."""
    print("\nmemory per file: peak RSS of one large file (rules + --target h100) / its size")
    print(f"{'file':34}{'MB':>7}{'tpf RSS':>10}{'x file':>8}{'ast.parse RSS':>15}{'x file':>8}")
    mb = 4_000_000 if quick else 16_000_000
    files = [("real code, concatenated", concatenated(trees, mb) if trees else ""),
             ("300,000 small functions" if not quick else "50,000 small functions",
              "".join(f"def f{i}(a, b=2, *c, **d):\n    return [a + b * {i} for _ in c if d]\n"
                      for i in range(300_000 if not quick else 50_000)))]
    py = baseline_python()[0]
    for name, text in files:
        if not text:
            continue
        _, _, rss = run_file(tpf, text, 1, ("--target", "h100"))
        with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as f:
            f.write(text)
            path = f.name
        try:
            _, _, py_rss = best([py, "-c", f"import ast; ast.parse(open({path!r}).read())"], 1)
        finally:
            os.unlink(path)
        size = len(text.encode()) / 2**20
        print(f"{name:34}{size:7.1f}{rss:9.0f}M{rss / size:7.1f}x{py_rss:14.0f}M{py_rss / size:7.1f}x")


def bench_memory_shapes(tpf, sizes, repeat):
    """Issue 20's table: peak RSS per file byte for each generated shape and
    size (all rules + --target h100, one file, -j1)."""
    print("memory per file: peak RSS / file size, generated shapes (tools/gen_big_file.py)")
    print(f"{'shape':10}{'MB':>7}{'peak RSS':>11}{'x file':>8}{'CPU s':>8}")
    worst = (0.0, "", 0.0)
    for shape in gen_big_file.SHAPES:
        for mb in sizes:
            text = gen_big_file.generate(shape, int(mb * 2**20))
            _, cpu, rss = run_file(tpf, text, repeat, ("--target", "h100"))
            size = len(text.encode()) / 2**20
            print(f"{shape:10}{size:7.1f}{rss:9.0f} M{rss / size:7.1f}x{cpu:8.2f}", flush=True)
            # Below 4 MB the process's own 10-20 MB dominate the ratio.
            if size >= 4 and rss / size > worst[0]:
                worst = (rss / size, shape, size)
    if worst[1]:
        print(f"target: peak RSS <= 10x the file (issue 20): worst {worst[0]:.1f}x "
              f"({worst[1]}, {worst[2]:.0f} MB)")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tpf", default="build/tools/tpf-analyze")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--quick", action="store_true", help="one run each, smaller scaling sizes")
    ap.add_argument("--memory", nargs="*", type=float, metavar="MB",
                    help="only the memory per file of generated shapes, at these sizes (default 1 4 16)")
    ap.add_argument("trees", nargs="*")
    a = ap.parse_args()
    repeat = 1 if a.quick else a.repeat
    tpf = os.path.abspath(a.tpf)
    if a.memory is not None:
        bench_memory_shapes(tpf, a.memory or [1, 4, 16], repeat)
        return 0
    for t in a.trees:
        bench_tree(tpf, t, repeat)
    bench_scaling(tpf, repeat, a.quick)
    bench_memory(tpf, a.trees, a.quick)
    return 0


if __name__ == "__main__":
    sys.exit(main())
