#!/usr/bin/env python3
"""Checks issue 24's parameter bar: a known verdict with parameters within 1%
of torch's own count on >= 80% of the scripts whose model is defined in the
repository or in tpf-analyze's tables.

usage: params_check.py [--args ARGS_TSV] TPF_ANALYZE REPOS_DIR [TRUTH_TSV]
TRUTH_TSV (default tools/realcode/params_truth.tsv next to this script):
path, scope (in/out), torch's count ("" when not measured), its source.
ARGS_TSV (default survey_args.tsv next to it): the arguments a script truly
requires. Each in-scope script is estimated for h100 from its folder; prints
one line per script (ok, off, unknown, at-least) and the share within 1%.
Exits 1 below 80%.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from survey_estimates import estimate, read_script_args, read_tsv  # noqa: E402


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    argv = sys.argv[1:]
    args_tsv = os.path.join(here, "survey_args.tsv")
    if argv[:1] == ["--args"]:
        args_tsv, argv = argv[1], argv[2:]
    tpf, root = os.path.abspath(argv[0]), argv[1]
    truth_tsv = argv[2] if len(argv) > 2 else os.path.join(here, "params_truth.tsv")
    script_args = read_script_args(args_tsv)
    rows = [r for r in read_tsv(truth_tsv) if r[0] != "path"]
    good = scoped = 0
    for r in rows:
        rel, scope, truth = r[0], r[1], r[2]
        if scope != "in":
            print(f"{'out':9} {rel}")
            continue
        scoped += 1
        doc, err = estimate(tpf, root, rel, script_args.get(rel, []), "h100")
        ests = doc.get("estimates", []) if doc else []
        if not ests or ests[0].get("verdict") == "unknown":
            print(f"{'unknown':9} {rel}")
            continue
        e = ests[0]
        n = int(e.get("params", 0))
        if not truth:
            print(f"{'no-truth':9} {rel}  tpf {n:,}: measure it")
            continue
        t = int(truth)
        within = abs(n - t) <= 0.01 * t
        good += within
        tag = ("ok" if e.get("params_exact") else "at-least") if within else "off"
        print(f"{tag:9} {rel}  tpf {n:,} torch {t:,} ({100.0 * (n - t) / t:+.2f}%)")
    share = 100.0 * good / scoped if scoped else 0.0
    print(f"within 1%: {good} of {scoped} in scope = {share:.1f}% (bar 80%)")
    return 0 if share >= 80.0 else 1


if __name__ == "__main__":
    sys.exit(main())
