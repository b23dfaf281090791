#!/usr/bin/env python3
"""The memory gate closes (issue 24), end to end: the bundled example is
over a T4 (33.13 GiB against 14.74 GiB usable), so TPF013 fires and the run
exits 1; a tight estimate is TPF024, a warning, which exits 0 by default and
1 under `--fail-on warning`.

usage: cli_gate.py TPF_ANALYZE EXAMPLE_TRAIN TIGHT_SCRIPT
"""
import json
import subprocess
import sys

tpf, example, tight = sys.argv[1], sys.argv[2], sys.argv[3]


def run(script, *extra):
    p = subprocess.run([tpf, "--isolated", "--format", "json", "--target", "t4", *extra, script],
                       capture_output=True, text=True)
    assert p.returncode in (0, 1), (p.returncode, p.stderr)
    out = json.loads(p.stdout)
    return p.returncode, [(d["rule"], d["severity"], d["line"]) for d in out["diagnostics"]], out["estimates"][0]


rc, diags, est = run(example)
assert rc == 1, (rc, diags)
assert ("TPF013", "error", 137) in diags, diags
assert est["verdict"] == "oom", est["verdict"]
assert est["peak_low_bytes"] > est["usable_bytes"], est

rc, diags, est = run(tight)
assert rc == 0, (rc, diags)
assert [d for d in diags if d[0] in ("TPF013", "TPF024")] == [("TPF024", "warning", 24)], diags
rc, diags, est = run(tight, "--fail-on", "warning")
assert rc == 1, (rc, diags)
print("ok")
