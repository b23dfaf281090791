#!/usr/bin/env python3
"""Runs tpf-analyze over a source tree (Debian's python3-torch by default)
and holds the rules to issue 4's quality bar: at most 1 finding per 100
files, no crash, no file left unanalyzed except for real syntax errors.
Every finding is printed so it can be read and judged; a finding judged
correct for this tree goes into KNOWN below with the reason.

usage: corpus_scan.py TPF_ANALYZE TREE...
"""
import collections
import json
import subprocess
import sys

# (rule, path suffix, line): findings read and judged true positives.
KNOWN = set()

MAX_PER_100_FILES = 1


def main():
    tpf, trees = sys.argv[1], sys.argv[2:]
    ok = True
    for tree in trees:
        p = subprocess.run([tpf, "--format", "json", "--fail-on", "never", tree],
                           capture_output=True, text=True, timeout=1200)
        if p.returncode < 0:
            print(f"{tree}: tpf-analyze crashed (signal {-p.returncode})\n{p.stderr[-4000:]}")
            ok = False
            continue
        # Syntax errors and notes (a folder symlink out of the tree, not
        # followed: Debian's torch/test -> /usr/lib/libtorch-test) are expected.
        bad_stderr = [l for l in p.stderr.splitlines()
                      if l and "SyntaxError" not in l and ": note: " not in l]
        if bad_stderr:
            print(f"{tree}: unexpected stderr:\n" + "\n".join(bad_stderr[:20]))
            ok = False
        doc = json.loads(p.stdout)
        files, diags = doc["files"], doc["diagnostics"]
        counts = collections.Counter(d["rule"] for d in diags)
        unknown = [d for d in diags
                   if not any(d["rule"] == r and d["path"].endswith(s) and d["line"] == l
                              for r, s, l in KNOWN)]
        print(f"{tree}: {files} files, {len(diags)} findings {dict(sorted(counts.items()))}")
        for d in diags:
            print(f"  {d['path']}:{d['line']}:{d['column']}: {d['severity']} {d['rule']} {d['message']}")
        if len(unknown) * 100 > MAX_PER_100_FILES * max(files, 1):
            print(f"{tree}: {len(unknown)} unjudged findings in {files} files: "
                  f"more than {MAX_PER_100_FILES} per 100 files")
            ok = False
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
