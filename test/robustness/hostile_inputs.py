#!/usr/bin/env python3
"""Hostile inputs through the tpf-analyze binary (issue 7: never crash, never hang).

Usage: hostile_inputs.py --tpf BUILD/tools/tpf-analyze [--regressions DIR] [-k SUBSTR]

Every case builds its input at run time in a temporary folder (nothing large
is committed), runs the binary, and asserts
  - the exit status (0 clean, 2 unreadable path or syntax error; never a
    signal, never a sanitizer report),
  - a clear message on stderr, or a correct result (the JSON AST equals
    CPython's own, via ../shared/tools/pyast2json.py, where CPython parses it),
  - bounded CPU time (LIMIT_S, generous: this is a hang detector, not a
    benchmark), a wall-clock kill (WALL_S, for blocked processes), and
    bounded peak RSS (LIMIT_RSS_MB).
Every file under --regressions (fuzzer finds, see docs/fuzzing.md) is run too:
it must end with exit 0 or 2 within the same limits.
"""
import argparse
import json
import os
import re
import shutil
import stat
import subprocess
import sys
import tempfile
import threading
import time

# CPU seconds per case; the wall-clock kill is far later (WALL_S), since on a
# loaded shared machine wall time says little. A blocked process (a FIFO)
# uses no CPU and is caught by the wall limit.
LIMIT_S = float(os.environ.get("TPF_ROBUST_LIMIT_S", "20"))
WALL_S = max(6 * LIMIT_S, 120)
LIMIT_RSS_MB = int(os.environ.get("TPF_ROBUST_RSS_MB", "3072"))
N = 100_000  # nesting depth for the deep cases
HERE = os.path.dirname(os.path.abspath(__file__))
PYAST2JSON = os.path.join(HERE, "..", "..", "..", "shared", "tools", "pyast2json.py")


class Result:
    def __init__(self, rc, out, err, secs, rss_mb):
        self.rc, self.out, self.err, self.secs, self.rss_mb = rc, out, err, secs, rss_mb


def run(tpf, args, stdin=None):
    """Runs tpf with args; kills it after LIMIT_S. Returns a Result with the
    child's own peak RSS (os.wait4)."""
    t0 = time.monotonic()
    p = subprocess.Popen([tpf] + args, stdin=stdin or subprocess.DEVNULL,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    bufs = {}

    def drain(name, f):  # keeps the first 256 MB: enough for every check
        kept, chunk = [], f.read(1 << 20)
        size = 0
        while chunk:
            if size < (256 << 20):
                kept.append(chunk)
            size += len(chunk)
            chunk = f.read(1 << 20)
        bufs[name] = b"".join(kept)

    threads = [threading.Thread(target=drain, args=(n, f)) for n, f in
               (("out", p.stdout), ("err", p.stderr))]
    for t in threads:
        t.start()
    status, rss_mb, timed_out, cpu = None, 0, False, 0.0
    while True:
        pid, st, ru = os.wait4(p.pid, os.WNOHANG)
        if pid:
            status, rss_mb, cpu = st, ru.ru_maxrss / 1024, ru.ru_utime + ru.ru_stime
            break
        if time.monotonic() - t0 > WALL_S:
            p.kill()
            os.wait4(p.pid, 0)
            timed_out = True
            break
        time.sleep(0.01)
    secs = time.monotonic() - t0
    p.returncode = 0  # reaped here; keep subprocess from waiting again
    for t in threads:
        t.join()
    if timed_out:
        return Result(None, bufs.get("out", b""), bufs.get("err", b""), secs, 0)
    rc = os.waitstatus_to_exitcode(status)
    return Result(rc, bufs.get("out", b""), bufs.get("err", b""), cpu, rss_mb)


def cpython_json(path):
    """CPython's AST for path as pyast2json JSON, or None if it fails to parse."""
    if not os.path.exists(PYAST2JSON):
        return None
    p = subprocess.run([sys.executable, PYAST2JSON, path], capture_output=True)
    return json.loads(p.stdout) if p.returncode == 0 else None


class Case:
    def __init__(self, name, make, rc, err=None, args=("--dump-ast", "--format", "json"),
                 same_as_cpython=False, out=None, check=None):
        self.name, self.make, self.rc, self.err = name, make, rc, err
        self.args, self.same_as_cpython, self.out, self.check = list(args), same_as_cpython, out, check


def write(d, name, data):
    path = os.path.join(d, name)
    with open(path, "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode())
    return path


def nested(open_, close, n=N):
    return "x = " + open_ * n + "1" + close * n + "\n"


def deep_if(n):
    return "".join(" " * i + "if x:\n" for i in range(n)) + " " * n + "pass\n"


# The whole pipeline with every rule and the estimator.
ANALYZE = ("--fail-on", "never", "--target", "h100", "--batch-size", "8")

TRAIN_PRELUDE = ("import torch\nimport torch.nn as nn\n"
                 "model = nn.Linear(10, 10)\nopt = torch.optim.SGD(model.parameters(), lr=0.1)\n")


def long_function(n):
    body = "".join(f"    v{i} = model(x) * {i}\n    if v{i}.sum() > {i}:\n        total = total + v{i}\n"
                   for i in range(n // 3))
    return (TRAIN_PRELUDE + "def train(loader):\n    total = 0\n    for x in loader:\n" +
            body.replace("\n    ", "\n        ").replace("    v0", "        v0", 1) +
            "        loss = total.mean()\n        loss.backward()\n        opt.step()\n"
            "        opt.zero_grad()\n")


def nested_loops(depth):
    lines = [TRAIN_PRELUDE]
    for i in range(depth - 1):
        lines.append(" " * i + f"for a{i} in range(2):\n")
    ind = " " * (depth - 1)
    lines.append(ind + "loss = model(x).sum()\n" + ind + "loss.backward()\n" + ind + "opt.step()\n")
    return "".join(lines)


def huge_match(n):
    cases = "".join(f"        case {i}:\n            loss = model(x).sum() * {i}\n" for i in range(n))
    return (TRAIN_PRELUDE + "for step, x in enumerate(loader):\n    match step % " + str(n) + ":\n" + cases +
            "        case _:\n            loss = model(x).sum()\n    loss.backward()\n    opt.step()\n"
            "    opt.zero_grad()\n")


def recursive_helpers(n):
    fs = ["def f0(x, k):\n    return f0(model(x), k - 1) if k else f%d(x, k)\n" % (n - 1)]
    fs += [f"def f{i}(x, k):\n    if k:\n        return f{i - 1}(x, k - 1) + f{i}(x, k - 1)\n"
           f"    return model(x)\n" for i in range(1, n)]
    return (TRAIN_PRELUDE + "".join(fs) +
            "for x in loader:\n    loss = f%d(x, 3).sum()\n    loss.backward()\n    opt.step()\n"
            "    opt.zero_grad()\n" % (n - 1))


def budget_case(name, fname, body):
    """A training script (torch and nn imported) that the estimator must end
    within the CPU limit, with the work budget named as the reason."""
    return Case(name, lambda d: [write(d, fname, "import torch\nimport torch.nn as nn\n" + body)],
                0, args=ANALYZE, check=lambda r: None if b"budget" in r.out else "no budget reason")


def many_modules(layers, classes):
    cls = "".join(f"class M{i}(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
                  f"        self.inner = M{i - 1}() if {i} else nn.Linear(8, 8)\n"
                  f"    def forward(self, x):\n        return self.inner(x)\n" for i in range(classes))
    seq = "net = nn.Sequential(" + ", ".join("nn.Linear(8, 8)" for _ in range(layers)) + ")\n"
    return (TRAIN_PRELUDE + cls + seq + f"deep = M{classes - 1}()\n"
            "for x in loader:\n    loss = (net(x) + deep(x)).sum()\n    loss.backward()\n    opt.step()\n"
            "    opt.zero_grad()\n")


def cases():
    ten_mb = "".join(f"def f{i}(a, b=2, *c, **d):\n    return [a + b * {i} for _ in c if d]\n"
                     for i in range(150_000))
    assert len(ten_mb) > 10_000_000
    one_line = "x = [" + ", ".join(str(i) for i in range(170_000)) + "]\n"
    assert len(one_line) > 1_000_000
    nesting = r"too many nested|nest|too deep|recursion|too many levels of indentation"
    return [
        Case("empty file", lambda d: [write(d, "empty.py", b"")], 0, same_as_cpython=True),
        Case("only comments", lambda d: [write(d, "c.py", "# a\n#b\n\n   # c\n# no newline")], 0,
             same_as_cpython=True),
        Case("10 MB file", lambda d: [write(d, "big.py", ten_mb)], 0),
        Case("10 MB file, default mode", lambda d: [write(d, "big.py", ten_mb)], 0, args=()),
        Case("1 MB single line", lambda d: [write(d, "line.py", one_line)], 0, same_as_cpython=True),
        Case("100k nested parentheses", lambda d: [write(d, "p.py", nested("(", ")"))], 2, err=nesting),
        Case("100k nested brackets", lambda d: [write(d, "b.py", nested("[", "]"))], 2, err=nesting),
        Case("100k nested braces", lambda d: [write(d, "br.py", nested("{", "}"))], 2, err=nesting),
        Case("100k unclosed parentheses", lambda d: [write(d, "u.py", "x = " + "(" * N + "\n")], 2,
             err=nesting),
        Case("100k nested if blocks (one line each)",
             lambda d: [write(d, "if.py", "".join(" " * i + "if x:\n" for i in range(95)) +
                              "".join("if x: " for _ in range(N)) + "pass\n")], 2),
        # 100k `if` blocks nested by indentation would be 5 GB of spaces, so:
        # 100k blocks in saw-teeth 150 deep (past CPython's 100-level limit).
        Case("100k if blocks, 150 deep saw-teeth",
             lambda d: [write(d, "if.py", "".join(deep_if(150) for _ in range(N // 150)))], 2, err=nesting),
        Case("10k-deep indentation", lambda d: [write(d, "ind.py", deep_if(10_000))], 2, err=nesting),
        Case("100 nested if blocks (valid)", lambda d: [write(d, "if100.py", deep_if(99))], 0,
             same_as_cpython=True),
        Case("100k lambdas", lambda d: [write(d, "l.py", "f = " + "lambda: " * N + "0\n")], 2, err=nesting),
        Case("100k unary minus", lambda d: [write(d, "m.py", "x = " + "-" * N + "1\n")], 2, err=nesting),
        Case("100k not", lambda d: [write(d, "n.py", "x = " + "not " * N + "1\n")], 2, err=nesting),
        Case("100k unary tilde/plus", lambda d: [write(d, "t.py", "x = " + "~+" * (N // 2) + "1\n")], 2,
             err=nesting),
        Case("100k await", lambda d: [write(d, "aw.py", "async def f():\n    " + "await " * N + "x\n")],
             2),  # `await await x` is a syntax error in CPython too
        Case("100k power chain", lambda d: [write(d, "pw.py", "x = " + "2 ** " * N + "2\n")], 2),
        Case("100k subscripts", lambda d: [write(d, "s.py", "x = a" + "[0]" * N + "\n")], None, err=nesting),
        Case("100k calls", lambda d: [write(d, "cl.py", "x = f" + "()" * N + "\n")], None, err=nesting),
        Case("100k attributes", lambda d: [write(d, "at.py", "x = a" + ".b" * N + "\n")], None, err=nesting),
        Case("100k binary +", lambda d: [write(d, "bp.py", "x = " + "1 + " * N + "1\n")], None, err=nesting),
        Case("100k comparisons", lambda d: [write(d, "cmp.py", "x = " + "1 < " * N + "1\n")], 0),
        Case("100k and", lambda d: [write(d, "and.py", "x = " + "a and " * N + "a\n")], 0),
        Case("100k conditional exprs",
             lambda d: [write(d, "ce.py", "x = " + "a if b else " * N + "c\n")], 2),
        Case("100k nested f-strings",
             lambda d: [write(d, "fs.py", "x = " + "f'{" * N + "1" + "}'" * N + "\n")], 2),
        Case("100k starred / dict unpack",
             lambda d: [write(d, "st.py", "x = [" + "*" * N + "a]\n")], 2),
        Case("100k nested patterns",
             lambda d: [write(d, "pat.py", "match x:\n    case " + "[" * N + "a" + "]" * N + ":\n        pass\n")],
             2, err=nesting),
        Case("100k decorators", lambda d: [write(d, "dec.py", "@d\n" * N + "def f(): pass\n")], 0),
        Case("100k-line statement list", lambda d: [write(d, "sl.py", "x = 1; " * N + "\n")], 0),
        Case("100k backslash continuations", lambda d: [write(d, "bs.py", "x = 1 \\\n" + "+ 1 \\\n" * N + "\n")],
             None, err=nesting),
        # Pathological analysis (issue 7): the whole pipeline, every rule and
        # the estimator, on inputs that stress the IR and the solvers.
        Case("function with 5,000 statements", lambda d: [write(d, "long.py", long_function(5000))], 0,
             args=ANALYZE),
        Case("loops nested 99 deep (the indentation limit)",
             lambda d: [write(d, "loops.py", nested_loops(99))], 0, args=ANALYZE),
        Case("200 nested loops in one comprehension",
             lambda d: [write(d, "comp.py", "x = [a0 " + " ".join(f"for a{i} in r{i}" for i in range(200)) + "]\n")],
             0, args=ANALYZE),
        Case("an endless loop before any step", lambda d: [write(d, "spin.py", "while True:\n    pass\n")], 0,
             args=ANALYZE),
        Case("an endless walrus loop", lambda d: [write(d, "walrus.py", "while chunk := f.read():\n    pass\n")],
             0, args=ANALYZE),
        Case("a module-level yield", lambda d: [write(d, "y.py", "yield 1\nfor x in g():\n    pass\n")], 0,
             args=ANALYZE),
        Case("match with 5,000 cases", lambda d: [write(d, "match.py", huge_match(5000))], 0, args=ANALYZE),
        Case("recursive and mutually recursive helpers",
             lambda d: [write(d, "rec.py", recursive_helpers(500))], 0, args=ANALYZE),
        Case("1,000 modules in nn.Sequential, 2,000 classes",
             lambda d: [write(d, "mods.py", many_modules(1000, 2000))], 0, args=ANALYZE),
        # Issue 20: models whose size the estimator's work followed
        # quadratically (each child counted its siblings; an optimizer
        # searched its parameter list per tensor; ModuleList lookups were
        # linear): 100,000 cloned encoder layers took 204 s, 200,000
        # ModuleList appends 34 s. The work budget now ends them.
        budget_case("TransformerEncoder with num_layers=100000", "enc.py",
                    "layer = nn.TransformerEncoderLayer(d_model=64, nhead=4)\n"
                    "model = nn.TransformerEncoder(layer, num_layers=100000)\n"
                    "opt = torch.optim.Adam(model.parameters())\n"
                    "model(torch.randn(16, 8, 64)).sum().backward()\nopt.step()\n"),
        budget_case("ModuleList.append 200,000 times", "ml.py",
                    "class Net(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
                    "        self.layers = nn.ModuleList()\n        for i in range(200000):\n"
                    "            self.layers.append(nn.Linear(4, 4))\n"
                    "    def forward(self, x):\n        for l in self.layers:\n            x = l(x)\n"
                    "        return x\nmodel = Net()\nopt = torch.optim.SGD(model.parameters(), lr=0.1)\n"
                    "model(torch.randn(2, 4)).sum().backward()\nopt.step()\n"),
        budget_case("nn.Sequential of 300,000 layers", "seq.py",
                    "model = nn.Sequential(*[nn.Linear(4, 4) for _ in range(300000)])\n"
                    "opt = torch.optim.SGD(model.parameters(), lr=0.1)\n"
                    "model(torch.randn(2, 4)).sum().backward()\nopt.step()\n"),
        Case("nn.Linear(2**40, 2**40): sizes past 64 bits",
             lambda d: [write(d, "big.py", TRAIN_PRELUDE.replace("nn.Linear(10, 10)", "nn.Linear(2**40, 2**40)") +
                              "model(torch.randn(8, 2**40)).sum().backward()\nopt.step()\n")],
             0, args=ANALYZE, check=lambda r: None if b"overflow" in r.out else "no overflow reason"),
        # Issue 20: recursion that followed the input's size. 10^5 branching
        # statements between a definition and its use (SSA construction read
        # through one join per statement), and 10^5 `with` items or `for`
        # clauses (lowering recursed per item).
        *[Case(f"10^5 {name} between a store and its read",
               lambda d, name=name, stmt=stmt: [write(d, "branchy.py", "x = 0\n" + stmt * N + "print(x)\n")],
               0, args=ANALYZE)
          for name, stmt in [("`and`", "y = a and b\n"), ("`or`", "y = a or b\n"),
                             ("`if` blocks", "if a:\n    y = 1\n"),
                             ("ternaries", "y = a if b else c\n"),
                             ("`try` blocks", "try:\n    y = 1\nexcept E:\n    pass\n"),
                             ("`for` loops", "for i in r:\n    y = 1\n"),
                             ("`while` loops", "while c:\n    y = 1\n"),
                             ("comprehensions", "y = [i for i in r if i]\n")]],
        Case("10^5 `and` in a function, then a read",
             lambda d: [write(d, "fn.py", "def f():\n    x = 0\n" + "    y = a and b\n" * N + "    print(x)\n")],
             0, args=ANALYZE),
        Case("`with` holding 10^5 items",
             lambda d: [write(d, "with.py", "with " + ", ".join(f"a{i}() as b{i}" for i in range(N)) +
                              ":\n    return_ = b0\n")], 0, args=ANALYZE),
        Case("comprehension with 10^5 `for` clauses",
             lambda d: [write(d, "comp.py", "x = [a0 " + " ".join(f"for a{i} in r" for i in range(N)) + "]\n")],
             0, args=ANALYZE),
        Case("invalid UTF-8", lambda d: [write(d, "bad.py", b"x = '\xff\xfe\xc3'\n")], 2,
             err=r"utf-8|UTF-8|decode"),
        Case("UTF-16 with BOM", lambda d: [write(d, "u16.py", "x = 1\n".encode("utf-16"))], 2,
             err=r"utf-8|UTF-8|decode|NUL|null"),
        Case("UTF-16 without BOM", lambda d: [write(d, "u16le.py", "x = 1\n".encode("utf-16-le"))], 2,
             err=r"utf-8|UTF-8|decode|NUL|null"),
        Case("UTF-8 BOM", lambda d: [write(d, "bom.py", b"\xef\xbb\xbfx = 1\n")], 0, same_as_cpython=True),
        Case("coding cookie latin-1", lambda d: [write(d, "lat.py", b"# -*- coding: latin-1 -*-\nx = '\xe9'\n")],
             None),
        Case("NUL bytes", lambda d: [write(d, "nul.py", b"x = 1\n\x00\x00y = 2\n")], 2,
             err=r"null|NUL|\\x00|0x00"),
        Case("NUL in string", lambda d: [write(d, "nul2.py", b"x = '\x00'\n")], 2),
        Case("binary file with .py suffix", lambda d: [shutil.copy("/bin/true", os.path.join(d, "true.py"))
                                                       or os.path.join(d, "true.py")], 2),
        Case("CRLF line endings", lambda d: [write(d, "crlf.py", b"if x:\r\n    y = 1\r\nz = '''a\r\nb'''\r\n")],
             0, same_as_cpython=True),
        Case("mixed line endings",
             lambda d: [write(d, "mix.py", b"if x:\r\n    y = 1\n    z = 2\r    w = 3\r\nv = 4\n")],
             0, same_as_cpython=True),
        Case("lone CR endings", lambda d: [write(d, "cr.py", b"x = 1\ry = 2\r")], 0, same_as_cpython=True),
        Case("tabs/spaces mixing, consistent",
             lambda d: [write(d, "tab1.py", "if x:\n\tif y:\n\t    z = 1\n")], 0, same_as_cpython=True),
        Case("tabs/spaces mixing, inconsistent",
             lambda d: [write(d, "tab2.py", "if x:\n        y = 1\n\tz = 2\n")], 2, err=r"[Tt]ab|inconsistent"),
        Case("form feed in indentation", lambda d: [write(d, "ff.py", "if x:\n  \f  y = 1\n")], 0,
             same_as_cpython=True),
        Case("directory named x.py in a project", lambda d: [os.makedirs(d + "/sub/x.py") or d + "/sub"], 0,
             args=()),
        Case("FIFO given as a file", lambda d: [os.mkfifo(os.path.join(d, "fifo.py")) or os.path.join(d, "fifo.py")],
             2, err=r"regular|FIFO|fifo|special"),
        Case("/dev/zero given as a file", lambda d: ["/dev/zero"], 2, err=r"regular|special|device"),
        Case("unreadable file", make_unreadable, 2, err=r"[Pp]ermission|can't open|regular"),
        Case("directory loop through symlinks", make_loop, 0, args=(), check=check_loop),
        Case("non-existent path", lambda d: [os.path.join(d, "nope.py")], 2, err=r"No such file"),
        Case("one bad file among good ones", make_mixed, 2, args=("--dump-ast",), check=check_mixed),
        Case("one missing path among good files", lambda d: [write(d, "a.py", "a = 1\n"), d + "/missing.py",
                                                             write(d, "b.py", "b = 2\n")],
             2, args=("--dump-ast",), err=r"missing\.py.*No such file", check=check_two),
    ]


def make_unreadable(d):
    """A file without read permission. As root chmod 000 does not stop reading;
    then the case checks that reading it works (the file is valid)."""
    p = write(d, "secret.py", "x = 1\n")
    os.chmod(p, 0)
    return [p]


def make_loop(d):
    os.makedirs(os.path.join(d, "proj", "pkg"))
    write(d, "proj/pkg/mod.py", "x = 1\n")
    os.symlink("..", os.path.join(d, "proj", "pkg", "up"))
    os.symlink(os.path.join(d, "proj"), os.path.join(d, "proj", "self"))
    return [os.path.join(d, "proj")]


def check_loop(r):
    return None  # exit 0 and bounded time is the point: the walk must end


def make_mixed(d):
    return [write(d, "a.py", "alpha = 1\n"), write(d, "bad.py", "def f(:\n"),
            write(d, "c.py", "gamma = 3\n")]


def check_mixed(r):
    out = r.out.decode(errors="replace")
    if "alpha" not in out or "gamma" not in out:
        return "the good files' output is missing"
    if "bad.py" not in r.err.decode(errors="replace"):
        return "no diagnostic names bad.py"
    return None


def check_two(r):
    out = r.out.decode(errors="replace")
    if "'a'" not in out and '"a"' not in out and "a" not in out:
        return "a.py's output is missing"
    return None


def check(tpf, case, tmp):
    d = tempfile.mkdtemp(dir=tmp)
    paths = case.make(d)
    r = run(tpf, case.args + paths)
    err = r.err.decode(errors="replace")
    problems = []
    if r.rc is None:
        problems.append(f"hang: killed after {WALL_S:.0f} s wall")
    elif r.secs > LIMIT_S:
        problems.append(f"{r.secs:.1f} CPU s > {LIMIT_S:.0f} s")
    elif r.rc < 0 or r.rc > 2:
        problems.append(f"crash: exit {r.rc}")
    if "Sanitizer" in err or "runtime error:" in err:
        problems.append("sanitizer report")
    if r.rss_mb > LIMIT_RSS_MB:
        problems.append(f"peak RSS {r.rss_mb:.0f} MB > {LIMIT_RSS_MB} MB")
    expected_rc = case.rc
    if case.name == "unreadable file" and os.access(paths[0], os.R_OK):
        expected_rc, case.err = 0, None  # root reads it anyway
    if expected_rc is not None and r.rc is not None and r.rc != expected_rc:
        problems.append(f"exit {r.rc}, expected {expected_rc}")
    if r.rc == 2 and not err.strip():
        problems.append("exit 2 without a message on stderr")
    if case.err and r.rc == 2 and not re.search(case.err, err):
        problems.append(f"stderr does not match /{case.err}/")
    if case.same_as_cpython and r.rc == 0:
        want = cpython_json(paths[0])
        if want is not None:
            try:
                got = json.loads(r.out)
            except ValueError:
                got = "<not JSON>"
            if got != want:
                problems.append("AST differs from CPython's")
    if case.check and r.rc is not None:
        msg = case.check(r)
        if msg:
            problems.append(msg)
    for p in paths:
        if os.path.isfile(p):
            os.chmod(p, 0o644)
    return r, problems, err


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tpf", required=True)
    ap.add_argument("--regressions", default=os.path.join(HERE, "regressions"))
    ap.add_argument("-k", default="")
    a = ap.parse_args()
    tpf = os.path.abspath(a.tpf)
    failed = 0
    tmp = tempfile.mkdtemp(prefix="tpf-robust-")
    try:
        todo = [c for c in cases() if a.k in c.name]
        if os.path.isdir(a.regressions):
            for f in sorted(os.listdir(a.regressions)):
                if a.k in f and f.endswith(".py"):
                    src = os.path.join(a.regressions, f)
                    todo.append(Case("regression " + f,
                                     lambda d, src=src: [shutil.copy(src, os.path.join(d, "input.py"))],
                                     None, args=ANALYZE))
        for case in todo:
            r, problems, err = check(tpf, case, tmp)
            status = "FAIL" if problems else "ok"
            rc = "timeout" if r.rc is None else r.rc
            print(f"{status:4} {case.name:45} exit {rc!s:7} {r.secs:6.2f} cpu-s {r.rss_mb:6.0f} MB"
                  + ("" if not problems else "  <- " + "; ".join(problems)), flush=True)
            if problems:
                failed += 1
                print("     stderr: " + err[:400].replace("\n", "\n             "))
    finally:
        for root, dirs, files in os.walk(tmp):
            for f in files:
                p = os.path.join(root, f)
                if os.path.isfile(p) and not os.path.islink(p):
                    os.chmod(p, 0o644)
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"{len(todo) - failed}/{len(todo)} passed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
