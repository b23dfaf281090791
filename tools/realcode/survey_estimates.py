#!/usr/bin/env python3
"""Estimates every training-looking script of exported repositories and
checks that each unknown verdict names its cause (issue 24).

usage: survey_estimates.py TPF_ANALYZE REPOS_DIR [TARGET]
REPOS_DIR holds one folder per repository, named owner+name (made by
export_repo.py from a fetched mirror). A script is a .py file that calls
`.backward(` and has a `__main__` guard, `parse_args` or a loop at the top
level (library modules that only define a training function are left out). Each is
analyzed from its own folder with --target TARGET (default a100) and
--format json. Prints the verdict counts, one line per estimate (verdict,
path, its first blocking reason), and exits 1 when an unknown verdict has
no reason in config.unknowns.
"""
import collections
import json
import os
import subprocess
import sys


def main():
    tpf, root = os.path.abspath(sys.argv[1]), sys.argv[2]
    target = sys.argv[3] if len(sys.argv) > 3 else "a100"
    rows = []
    for dp, _, files in sorted(os.walk(root)):
        for f in sorted(files):
            if not f.endswith(".py"):
                continue
            path = os.path.join(dp, f)
            with open(path, errors="ignore") as fh:
                text = fh.read()
            # A script, not a library module: a __main__ guard, a command
            # line, or a loop at the top level.
            top_loop = any(l.startswith(("for ", "while ")) for l in text.splitlines())
            if ".backward(" not in text or not ("__main__" in text or "parse_args" in text or top_loop):
                continue
            r = subprocess.run([tpf, "--format", "json", "--target", target, f], cwd=dp,
                               capture_output=True, text=True, timeout=120)
            rel = os.path.relpath(path, root)
            try:
                doc = json.loads(r.stdout)
            except ValueError:
                rows.append(("no-json", rel, 0, r.stderr.strip()[:120]))
                continue
            for e in doc.get("estimates", []):
                unknowns = e.get("config", {}).get("unknowns", [])
                blocking = [u["what"] for u in unknowns if u.get("blocking")]
                why = blocking[0] if blocking else (unknowns[0]["what"] if unknowns else "")
                rows.append((e.get("verdict"), rel, len(unknowns), why))
    print(dict(collections.Counter(r[0] for r in rows)))
    silent = [r for r in rows if r[0] == "unknown" and r[2] == 0]
    print("unknown verdicts without a reason:", len(silent))
    for r in rows:
        print(f"{r[0]:8} {r[1]} | {r[3][:140]}")
    return 1 if silent else 0


if __name__ == "__main__":
    sys.exit(main())
