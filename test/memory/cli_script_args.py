#!/usr/bin/env python3
"""The script's own command line after `--` (issue 24), end to end: it
reaches the script's argparse parser, tpf-analyze's own options before it
still apply, and a path after `--` is an argument, not an input.

usage: cli_script_args.py TPF_ANALYZE SCRIPT
SCRIPT takes --batch-size (default 64, line 29) and a required positional.
"""
import json
import subprocess
import sys

tpf, script = sys.argv[1], sys.argv[2]


def estimate(*extra):
    p = subprocess.run([tpf, "--isolated", "--format", "json", "--target", "t4", script, *extra],
                       capture_output=True, text=True)
    assert p.returncode in (0, 1), p.stderr
    est = json.loads(p.stdout)["estimates"]
    assert len(est) == 1, est
    return est[0]


plain = estimate()
assert plain["config"]["batch_size"]["value"] == 64, plain["config"]["batch_size"]
given = estimate("--", "/data/train", "--batch-size", "16", "--dtype", "bf16")
bs = given["config"]["batch_size"]
assert bs == {"value": 16, "line": 29, "source": "argv --batch-size 16"}, bs
# `--dtype` after `--` is the script's (unknown to its parser), not ours.
assert given["config"]["precision"]["value"] == "float32", given["config"]["precision"]
assert any(u["what"].startswith("`--dtype` on the script's command line") for u in given["config"]["unknowns"])
print("ok")
