#!/usr/bin/env python3
"""Estimates every training-looking script of exported repositories and
checks that each unknown verdict names its cause (issue 24).

usage: survey_estimates.py [--args ARGS_TSV] [--only SURVEY_TSV] TPF_ANALYZE REPOS_DIR [TARGET]
REPOS_DIR holds one folder per repository, named owner+name (made by
export_repo.py from a fetched mirror). A script is a .py file with a
`__main__` guard, `parse_args` or a loop statement at the top level
(library modules that only define a training function are left out)
whose training step is its own (it calls `.backward(`) or is in a module
of its own project that it imports, directly or through other such
modules (minGPT's projects/adder/adder.py trains in mingpt/trainer.py,
pytorch/examples mnist_hogwild/main.py in train.py). Which modules those
are is tpf-analyze's own resolution (--dump-facts=imports): the
project's files only, never the libraries it models or what is
installed. Each is
analyzed from its own folder with --target TARGET (default a100) and
--format json. Prints the verdict counts, one line per estimate (verdict,
path, its first blocking reason), and exits 1 when an unknown verdict has
no reason in config.unknowns.

--args ARGS_TSV: the arguments a script truly requires, one line each
(path, then tpf-analyze's options and `-- SCRIPT_ARGS` as one field, then
why the script requires them); the script is analyzed with them and its
line says so. --only SURVEY_TSV: estimate only the scripts that survey
lists (its second column), e.g. survey_h100.tsv's 93 scripts.
"""
import ast
import collections
import json
import shlex
import os
import subprocess
import sys


def read_tsv(path):
    with open(path) as fh:
        return [l.rstrip("\n").split("\t") for l in fh if l.strip() and not l.startswith("#")]


def read_script_args(path):
    """survey_args.tsv: script path -> tpf-analyze options and `-- SCRIPT_ARGS`."""
    return {r[0]: shlex.split(r[1]) for r in read_tsv(path)}


def estimate(tpf, root, rel, extra, target):
    """Runs tpf-analyze --format json on script `rel` of REPOS_DIR `root`
    from its own folder; `extra` are options, then `--` and the script's
    arguments. Returns (the JSON document, "") or (None, stderr)."""
    dp, f = os.path.split(os.path.join(root, rel))
    cut = extra.index("--") if "--" in extra else len(extra)
    cmd = [tpf, "--format", "json", "--target", target] + extra[:cut] + [f] + extra[cut:]
    r = subprocess.run(cmd, cwd=dp, capture_output=True, text=True, timeout=120)
    try:
        return json.loads(r.stdout), ""
    except ValueError:
        return None, r.stderr.strip()


def is_script(text):
    """A script, not a library module: a __main__ guard, a command line, or
    a loop statement at the top level (by the AST: a docstring line that
    starts with "for " is none; timm's tests/test_models.py has one)."""
    if "__main__" in text or "parse_args" in text:
        return True
    try:
        body = ast.parse(text).body
    except (SyntaxError, ValueError):  # newer syntax than this Python's
        return any(l.startswith(("for ", "while ")) for l in text.splitlines())
    return any(isinstance(n, (ast.For, ast.AsyncFor, ast.While)) for n in body)


def project_modules(tpf, path):
    """The files of the project's own modules that script `path` imports,
    directly or through each other, as tpf-analyze resolves them
    (--dump-facts=imports, run from the script's folder): its `module NAME
    PATH` lines past `__main__`, PATH relative to the project root (or
    absolute when outside it)."""
    path = os.path.abspath(path)
    dp, f = os.path.split(path)
    r = subprocess.run([tpf, "--dump-facts=imports", f], cwd=dp, capture_output=True, text=True, timeout=120)
    lines = r.stdout.splitlines()
    rels = [l.split(" ", 2)[2] for l in lines if l.startswith("module ") and l.count(" ") >= 2]
    if not rels:
        return []
    # The first module line is the script itself: the folder it is relative
    # to is the project root.
    main_rel, rels = rels[0], rels[1:]
    root = path[: -len(main_rel)] if path.endswith(main_rel) else dp
    return [m if os.path.isabs(m) else os.path.join(root, m) for m in rels]


def trains(tpf, path, text):
    """Whether the script's training step is its own or a project module's."""
    if ".backward(" in text:
        return True
    for m in project_modules(tpf, path):
        try:
            with open(m, errors="ignore") as fh:
                if ".backward(" in fh.read():
                    return True
        except OSError:
            continue
    return False


def main():
    argv = sys.argv[1:]
    script_args, only = {}, None
    while argv and argv[0] in ("--args", "--only"):
        if argv[0] == "--args":
            script_args = read_script_args(argv[1])
        else:
            only = {r[1] for r in read_tsv(argv[1]) if len(r) > 1 and r[0] != "verdict"}
        argv = argv[2:]
    tpf, root = os.path.abspath(argv[0]), argv[1]
    target = argv[2] if len(argv) > 2 else "a100"
    rows = []
    for dp, _, files in sorted(os.walk(root)):
        for f in sorted(files):
            if not f.endswith(".py"):
                continue
            path = os.path.join(dp, f)
            rel = os.path.relpath(path, root)
            if only is not None and rel not in only:
                continue
            with open(path, errors="ignore") as fh:
                text = fh.read()
            if not is_script(text) or not trains(tpf, path, text):
                continue
            extra = script_args.get(rel, [])
            doc, err = estimate(tpf, root, rel, extra, target)
            if extra:
                rel += " [" + " ".join(extra) + "]"
            if doc is None:
                rows.append(("no-json", rel, 0, err[:120]))
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
