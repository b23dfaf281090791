#!/usr/bin/env python3
"""Live comparison with CPython 3.12 and 3.13, when they are installed.

For each version found (pyenv's ~/.pyenv/versions/3.12.*, 3.13.*, or
python3.12 / python3.13 on PATH): every .py file of that interpreter's own
stdlib, tests included (site-packages left out), goes through
../shared/tools/astcompare.py with `tpf-analyze --python-version 3.X`, and
every file that interpreter rejects must be rejected by tpf-analyze with exit
2 at CPython's line and column (errors CPython gives no position, such as an
unknown coding, only need the exit code).

Usage: pyversions_corpus.py TPF_ANALYZE ASTCOMPARE WORKDIR [--limit N]
Exit 0 when every version found matches, 77 (meson's "skipped") when none
is installed, 1 otherwise.
"""
import argparse
import glob
import json
import os
import shutil
import subprocess
import sys

SKIP = 77

# Each interpreter runs this to list its stdlib and its rejected files with
# their positions, so the oracle is the interpreter itself.
LISTER = r'''
import ast, json, os, sys, sysconfig, warnings
warnings.simplefilter("ignore")
root = sysconfig.get_paths()["stdlib"]
files, rejected = [], []
for d, subdirs, names in os.walk(root):
    subdirs[:] = sorted(s for s in subdirs if s not in ("site-packages", "__pycache__"))
    for n in sorted(names):
        if not n.endswith(".py"):
            continue
        p = os.path.join(d, n)
        files.append(p)
        try:
            src = open(p, "rb").read()
            ast.parse(src, filename=p)
        except SyntaxError as e:
            rejected.append([p, e.lineno or 0, e.offset or 0, e.msg])
        except Exception as e:
            rejected.append([p, 0, 0, type(e).__name__])
json.dump({"files": files, "rejected": rejected}, sys.stdout)
'''


def interpreters():
    found = {}
    home = os.path.expanduser("~")
    for minor in (12, 13):
        cands = sorted(glob.glob(os.path.join(home, ".pyenv", "versions", f"3.{minor}.*", "bin", "python")))
        cands = [c for c in cands if os.access(c, os.X_OK)]
        exe = cands[-1] if cands else shutil.which(f"python3.{minor}")
        if exe:
            found[minor] = exe
    return found


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("tpf")
    ap.add_argument("astcompare")
    ap.add_argument("workdir")
    ap.add_argument("--limit", type=int, default=0)
    a = ap.parse_args()
    if not os.path.isfile(a.astcompare):
        print(f"pyversions-corpus: skipped: {a.astcompare} not found")
        return SKIP
    pys = interpreters()
    if not pys:
        print("pyversions-corpus: skipped: no CPython 3.12 or 3.13 here "
              "(pyenv install 3.12 / 3.13 to run it)")
        return SKIP
    os.makedirs(a.workdir, exist_ok=True)
    tpf = os.path.abspath(a.tpf)
    failed = False
    for minor, exe in sorted(pys.items()):
        wrapper = os.path.join(a.workdir, f"tpf-py3.{minor}")
        with open(wrapper, "w") as f:
            f.write(f'#!/bin/sh\nexec "{tpf}" --python-version 3.{minor} "$@"\n')
        os.chmod(wrapper, 0o755)
        listing = subprocess.run([exe, "-c", LISTER], capture_output=True, text=True, check=True)
        data = json.loads(listing.stdout)
        files = data["files"][: a.limit] if a.limit else data["files"]
        print(f"== CPython 3.{minor} ({exe}): {len(files)} files, {len(data['rejected'])} rejected")
        sys.stdout.flush()
        listfile = os.path.join(a.workdir, f"files3.{minor}.txt")
        with open(listfile, "w") as f:
            f.write("\n".join(files) + "\n")
        # astcompare runs under the same interpreter: its ast is the oracle.
        r = subprocess.run(["xargs", "-a", listfile, "-d", "\n", exe, a.astcompare, "--tpf", wrapper],
                           capture_output=True, text=True)
        lines = [l for l in r.stdout.splitlines() if l.strip()]
        for l in lines[-20:]:
            print("  " + l)
        summary = next((l for l in reversed(lines) if l.startswith("astcompare:")), "")
        if r.returncode != 0 or not summary:
            failed = True
            print(f"  FAIL: astcompare exit {r.returncode}; {r.stderr.strip()[-400:]}")
        chosen = set(files)
        bad = 0
        for path, line, col, msg in data["rejected"]:
            if path not in chosen:
                continue
            t = subprocess.run([wrapper, "--dump-ast", "--format", "json", path], capture_output=True, text=True)
            first = t.stderr.splitlines()[0] if t.stderr else ""
            where = first[len(path) + 1:] if first.startswith(path + ":") else first
            ok = t.returncode == 2 and (line <= 0 or where.startswith(f"{line}:{col}:"))
            if not ok:
                bad += 1
                print(f"  REJECT MISMATCH {path}: CPython {line}:{col} {msg!r}; tpf exit {t.returncode}: {where[:160]}")
        print(f"  rejected files at CPython's position: {len(data['rejected']) - bad}/{len(data['rejected'])}")
        failed |= bad > 0
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
