#!/usr/bin/env python3
"""Measures recall on tools/realcode/recall_labeled.tsv: real bugs in public
repositories, each at the commit where it was read. Each row's repository
tree is exported at that commit (export_repo.py, from the fetched mirror in
MIRRORS/OWNER+NAME/repo) into WORK/OWNER+NAME@COMMIT7, and the analyzer runs
on the file from the tree's root, as a user would (project imports followed).
A row is found when its rule fires within 2 lines of the labeled line, or of
a line its `accept` column names (PATH:LINE, space-separated: alternatives
the label itself gave when it was written, such as the call site of a helper
that evals, or the module defining a model's forward); it is found elsewhere
when the rule fires only at other lines of the file. Both counts are printed.
Development tool, not CI: never commit what it exports.

usage: recall.py TPF_ANALYZE WORK [MIRRORS [COPIES]]
MIRRORS: /work/.mirror. COPIES: a folder of single files saved as
COPIES/OWNER+NAME/PATH (from the stored index, for commits a mirror does not
hold); used when the mirror cannot export the commit.
"""
import shutil
import collections
import os
import subprocess
import sys

tpf, work = os.path.abspath(sys.argv[1]), sys.argv[2]
mirrors = sys.argv[3] if len(sys.argv) > 3 else "/work/.mirror"
copies = sys.argv[4] if len(sys.argv) > 4 else None
here = os.path.dirname(os.path.abspath(__file__))
per_rule = collections.defaultdict(lambda: [0, 0, 0])
found_all = elsewhere_all = total = 0
for line in open(os.path.join(here, "recall_labeled.tsv")):
    if line.startswith("#") or not line.strip():
        continue
    cols = line.rstrip("\n").split("\t")
    repo, commit, path, lineno, rule = cols[:5]
    accepted = [(path, int(lineno))]
    for a in (cols[8].split() if len(cols) > 8 else []):
        apath, aline = a.rsplit(":", 1)
        accepted.append((apath, int(aline)))
    git_dir = os.path.join(mirrors, repo.replace("/", "+"), "repo")
    root = os.path.join(work, repo.replace("/", "+") + "@" + commit[:7])
    if not os.path.exists(os.path.join(root, path)) and os.path.isdir(git_dir):
        subprocess.run([sys.executable, os.path.join(here, "export_repo.py"), git_dir, root, commit],
                       capture_output=True)
    if not os.path.exists(os.path.join(root, path)) and copies:
        for name in (repo.replace("/", "+") + "@" + commit[:7], repo.replace("/", "+")):
            src = os.path.join(copies, name, path)
            if os.path.exists(src):
                os.makedirs(os.path.dirname(os.path.join(root, path)), exist_ok=True)
                shutil.copy(src, os.path.join(root, path))
                break
    if not os.path.exists(os.path.join(root, path)):
        print(f"SKIP {repo} {path}: commit {commit[:7]} not in a fetched mirror (fetch github:{repo})")
        continue
    p = subprocess.run([tpf, "--isolated", "--format", "concise", "--fail-on", "never", path],
                       cwd=root, capture_output=True, text=True, timeout=120)
    hits = [l.split(":")[:2] for l in p.stdout.splitlines() if f" {rule} " in l and l.count(":") >= 2]
    hits = [(h[0], int(h[1])) for h in hits if h[1].isdigit()]
    lines = [n for hp, n in hits if hp == path]
    found = any(hp == ap and abs(n - al) <= 2 for hp, n in hits for ap, al in accepted)
    elsewhere = not found and bool(lines)
    total += 1
    found_all += found
    elsewhere_all += elsewhere
    per_rule[rule][0] += found
    per_rule[rule][1] += elsewhere
    per_rule[rule][2] += 1
    note = "" if found or not lines else f" (fires at {', '.join(map(str, lines))})"
    err = p.stderr.strip().splitlines()
    if p.returncode == 2 and err:
        note += f" [{err[0][:100]}]"
    print(("found" if found else "elsew" if elsewhere else "MISS "), rule, repo, f"{path}:{lineno}{note}")
print()
for rule in sorted(per_rule):
    f, e, n = per_rule[rule]
    print(f"{rule}  {f}/{n}" + (f" (+{e} elsewhere in the file)" if e else ""))
if total:
    print(f"recall {found_all}/{total} = {100.0 * found_all / total:.0f}% at the line; "
          f"{found_all + elsewhere_all}/{total} = {100.0 * (found_all + elsewhere_all) / total:.0f}% in the file")
