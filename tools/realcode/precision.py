#!/usr/bin/env python3
"""Measures the rules' precision on real repositories against a judged list
(issue 17).

usage: precision.py TPF_ANALYZE REPOS_DIR JUDGED_TSV [REPO ...]
JUDGED_TSV has the columns repo, commit, path, line, rule, verdict (true or
false), reason; every error and warning of a review was judged. Each
repository (REPOS_DIR/owner+name, made by export_repo.py) is analyzed as a
whole, imports followed, as its review was: --isolated -j2 --fail-on never
--format concise. A judged finding that still fires counts with its verdict;
a finding that is not in the list is printed as NEW (to be read and judged:
the list is only complete for the analyzer it was made with). Each export
gets an empty .git folder, the project-root marker a clone has. Prints the
per-rule table and exits 1 when a finding judged true no longer fires
(recall lost) or a NEW finding appears.
"""
import collections
import os
import re
import subprocess
import sys

tpf, repos, judged_path = os.path.abspath(sys.argv[1]), sys.argv[2], sys.argv[3]
only = set(sys.argv[4:])
judged = {}
for line in open(judged_path, encoding="utf-8"):
    if line.startswith(("#", "repo\t")) or not line.strip():
        continue
    repo, _commit, path, lineno, rule, verdict, _reason = line.rstrip("\n").split("\t")[:7]
    judged[(repo, path, int(lineno), rule)] = verdict

finding = re.compile(r"^\./(.*?):(\d+):\d+: (error|warning) (TPF\d{3}) ")
seen = set()
new = []
for repo in sorted({k[0] for k in judged}):
    if only and repo not in only:
        continue
    root = os.path.join(repos, repo.replace("/", "+"))
    if not os.path.isdir(root):
        print(f"SKIP {repo}: not exported under {repos}")
        continue
    # An export has no .git, a checkout has: without the marker, a script
    # in a subfolder (scripts/train.py importing the root's package) finds
    # no project root, as it would in the user's clone.
    os.makedirs(os.path.join(root, ".git"), exist_ok=True)
    p = subprocess.run([tpf, "--isolated", "-j2", "--fail-on", "never", "--format", "concise", "."],
                       cwd=root, capture_output=True, text=True, timeout=600)
    for l in p.stdout.splitlines():
        m = finding.match(l)
        if not m:
            continue
        key = (repo, m.group(1), int(m.group(2)), m.group(4))
        if key in judged:
            seen.add(key)
        else:
            new.append(key)

table = collections.defaultdict(lambda: [0, 0])
lost = []
for key, verdict in sorted(judged.items()):
    if only and key[0] not in only:
        continue
    if key in seen:
        table[key[3]][0 if verdict == "true" else 1] += 1
    elif verdict == "true":
        lost.append(key)
for key in sorted(seen):
    if judged[key] == "false":
        print("FALSE", *key)
for key in new:
    print("NEW ", *key)
for key in lost:
    print("LOST", *key)
print(f"{'rule':8} {'true':>5} {'false':>5} {'precision':>9}")
t = f = 0
for rule in sorted(table):
    a, b = table[rule]
    t, f = t + a, f + b
    print(f"{rule:8} {a:5} {b:5} {100 * a / (a + b):8.1f}%")
print(f"{'all':8} {t:5} {f:5} {100 * t / max(1, t + f):8.1f}%  ({len(new)} new, {len(lost)} true lost)")
sys.exit(1 if lost or new else 0)
