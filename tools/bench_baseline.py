"""The CPython the benchmarks compare against (issue 21): the fastest one on
the machine, not the interpreter that happens to run the bench. Debian's
/usr/bin/python3 is built with PGO and LTO; a CPython built from source
(pyenv, a venv's) often is not, and its ast.parse is 25-30% slower, which
flatters every ratio. Preference: /usr/bin/python3, then any CPython 3.11
found (python3.11 on PATH, pyenv's 3.11.x), the fastest at parsing a probe
source when several are found.
"""
import glob
import os
import shutil
import subprocess
import time

PROBE = ("import ast, time\n"
         "src = open(ast.__file__).read() * 4\n"
         "best = 1e9\n"
         "for _ in range(5):\n"
         "    t = time.perf_counter(); ast.parse(src); best = min(best, time.perf_counter() - t)\n"
         "print(best)\n")


def _version(py):
    r = subprocess.run([py, "-c", "import sys, platform; print(platform.python_implementation(), "
                        "'.'.join(map(str, sys.version_info[:3])))"], capture_output=True, text=True)
    return r.stdout.strip() if r.returncode == 0 else None


def _candidates():
    seen = []
    for p in ["/usr/bin/python3", shutil.which("python3.11")] + sorted(
            glob.glob(os.path.expanduser("~/.pyenv/versions/3.11*/bin/python3.11"))):
        if p and os.path.exists(p) and os.path.realpath(p) not in [os.path.realpath(s) for s in seen]:
            seen.append(p)
    return seen


def baseline_python():
    """(path, 'CPython 3.11.2') of the interpreter to time ast.parse with."""
    if os.path.exists("/usr/bin/python3"):
        v = _version("/usr/bin/python3")
        if v and v.startswith("CPython"):
            return "/usr/bin/python3", v
    timed = []
    for py in _candidates():
        v = _version(py)
        if not v or not v.startswith("CPython 3.11"):
            continue
        r = subprocess.run([py, "-c", PROBE], capture_output=True, text=True)
        if r.returncode == 0:
            timed.append((float(r.stdout), py, v))
    if not timed:
        raise SystemExit("bench: no CPython 3.11 found to compare against (install Debian's python3)")
    _, py, v = min(timed)
    return py, v
