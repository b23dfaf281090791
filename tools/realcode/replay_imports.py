#!/usr/bin/env python3
"""Replays tools/realcode/imports_judged.tsv, estimates_judged.tsv and
findings_judged.tsv against exported repositories.

usage: replay_imports.py TPF_ANALYZE REPOS_DIR
REPOS_DIR holds one folder per repository, named owner+name (made by
export_repo.py from a fetched mirror). Each row's script is analyzed from
its own folder, with --target h100; a `params` row checks the parameter
count, `seqlen` / `batch` rows the setting, a `verdict` row the verdict
(fits, tight, oom, unknown), a rule row that the rule fires (present) or
not (absent) at the line (line 0: anywhere in the file). A path may carry
the script's own command line after " -- " (`train.py -- config/x.py`).
Prints one line per row and exits 1 when any row disagrees.
"""
import os
import subprocess
import sys

tpf, repos = os.path.abspath(sys.argv[1]), sys.argv[2]
here = os.path.dirname(os.path.abspath(__file__))
bad = 0
rows = [line for name in ("imports_judged.tsv", "estimates_judged.tsv", "findings_judged.tsv")
        for line in open(os.path.join(here, name))]
for line in rows:
    if line.startswith("#") or not line.strip():
        continue
    repo, commit, path, lineno, what, expected, _verdict, _reason = line.rstrip("\n").split("\t")
    root = os.path.join(repos, repo.replace("/", "+"))
    path, _, script_args = path.partition(" -- ")
    script = os.path.join(root, path)
    if not os.path.exists(script):
        print(f"SKIP {repo} {path}: not exported")
        continue
    p = subprocess.run([tpf, "--isolated", "--format", "concise", "--target", "h100", os.path.basename(script)]
                       + (["--", *script_args.split()] if script_args else []),
                       cwd=os.path.dirname(script), capture_output=True, text=True, timeout=120)
    text = p.stdout + p.stderr
    if what == "params":
        ok = f"parameters   {expected} " in text
    elif what == "seqlen":
        ok = f"seq len      {expected} " in text
    elif what == "batch":
        ok = f"batch size   {expected} " in text
    elif what == "verdict":
        ok = any(l.startswith("  verdict ") and l.rstrip().lower().endswith(" " + expected)
                 for l in text.splitlines())
    elif lineno == "0":
        # a rule anywhere in the file
        ok = (f" {what} " in text) == (expected == "present")
    else:
        where = f"{os.path.basename(script)}:{lineno}:"
        hit = any(l.startswith(where) and f" {what} " in l for l in text.splitlines())
        ok = hit == (expected == "present")
    bad += not ok
    print(("ok  " if ok else "FAIL"), repo, path, lineno, what, expected)
sys.exit(1 if bad else 0)
