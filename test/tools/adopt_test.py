#!/usr/bin/env python3
"""Adopting the tool in an existing codebase (issue 23): --add-noqa and
--statistics through the binary, against golden files.

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


class Golden(unittest.TestCase):
    def golden(self, path, actual):
        if UPDATE:
            write(path, actual)
            return
        self.assertTrue(os.path.exists(path), f"{path} is missing (run with TPF_UPDATE_GOLDEN=1)")
        expected = read(path)
        self.assertEqual(actual.decode("utf-8", "replace"), expected.decode("utf-8", "replace"), path)
        self.assertEqual(actual, expected, path)

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="tpf-adopt-test-")

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def case_file(self, case, data, name=None):
        path = os.path.join(self.tmp, name or os.path.basename(case))
        write(path, data)
        return path

    def test_cases(self):
        cases = sorted(glob.glob(os.path.join(GOLDEN, "*.py")))
        self.assertGreater(len(cases), 0)
        for case in cases:
            with self.subTest(case=os.path.basename(case)):
                self.check_case(case)

    def check_case(self, case):
        base = case[:-3]
        source = read(case)
        path = self.case_file(case, source)
        os.chmod(path, 0o640)
        rc, out, err = run("--add-noqa", path, cwd=self.tmp)
        self.assertEqual((rc, out), (0, b""), err)
        self.golden(base + ".noqa.err", err.replace(self.tmp.encode(), b"DIR"))
        added = read(path)
        self.golden(base + ".noqa", added)
        self.assertEqual(stat.S_IMODE(os.stat(path).st_mode), 0o640, "the file keeps its mode")
        self.assertNotEqual(added, source, "the case has findings to suppress")
        # A rerun reports nothing; a second --add-noqa changes nothing.
        rc, out, err = run(path)
        self.assertEqual((rc, out), (0, b"no problems found in 1 file\n"), err)
        rc, out, err = run("--add-noqa", path)
        self.assertEqual((rc, err, read(path)), (0, b"tpf-analyze: --add-noqa: nothing to suppress\n", added))
        # Standard input: the same bytes on stdout, the count on stderr.
        rc, out, err = run("--add-noqa", "--stdin-filename", "in.py", "-", stdin=source)
        self.assertEqual((rc, out), (0, added), err)
        self.assertTrue(err.startswith(b"in.py: added "), err)
        # CRLF line endings stay CRLF; a file without a final newline gets none.
        crlf = self.case_file(case, source.replace(b"\n", b"\r\n"), "crlf.py")
        rc, _, err = run("--add-noqa", crlf)
        self.assertEqual((rc, read(crlf)), (0, added.replace(b"\n", b"\r\n")), err)
        self.assertTrue(source.endswith(b"\n") and added.endswith(b"\n"))
        bare = self.case_file(case, source[:-1], "bare.py")
        rc, _, err = run("--add-noqa", bare)
        self.assertEqual((rc, read(bare)), (0, added[:-1]), err)
        for p in (crlf, bare):
            rc, out, err = run(p)
            self.assertEqual((rc, out), (0, b"no problems found in 1 file\n"), err)
        # The counts per rule, on the file as it was.
        write(path, source)
        rc, out, err = run("--statistics", path, cwd=self.tmp)
        self.golden(base + ".stats", out.replace(self.tmp.encode(), b"DIR"))
        rc_json, out, _ = run("--statistics", "--format", "json", path, cwd=self.tmp)
        self.golden(base + ".stats.json", out)
        self.assertEqual(rc, rc_json)
        rc_plain, _, _ = run(path)
        self.assertEqual(rc, rc_plain, "--statistics exits as the plain run does")
        rc, _, _ = run("--statistics", "--fail-on", "never", path)
        self.assertEqual(rc, 0)


class AddNoqa(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="tpf-adopt-test-")

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def file(self, name, data):
        path = os.path.join(self.tmp, name)
        write(path, data)
        return path

    def test_several_files_and_the_total(self):
        a = self.file("a.py", read(os.path.join(GOLDEN, "layouts.py")))
        b = self.file("b.py", ONE)
        c = self.file("c.py", b"x = 1\n")
        rc, out, err = run("--add-noqa", c, b, a)
        lines = err.decode().splitlines()
        self.assertEqual(rc, 0, err)
        self.assertEqual(out, b"")
        # The files in input order (c.py has nothing to suppress), then the total.
        self.assertEqual(lines, [f"{b}: added 1 suppression on 1 line", f"{a}: added 8 suppressions on 7 lines",
                                 "tpf-analyze: --add-noqa: added 9 suppressions on 8 lines in 2 files"])
        self.assertEqual(read(c), b"x = 1\n")
        self.assertEqual(read(b), ONE_ADDED)

    def test_syntax_error_left_untouched(self):
        bad = self.file("bad.py", b"import torch\ndef f(:\n    pass\n")
        good = self.file("good.py", ONE)
        rc, out, err = run("--add-noqa", bad, good)
        self.assertEqual(rc, 2)
        self.assertIn(f"{bad}:2:7: SyntaxError: ".encode(), err)
        self.assertEqual(read(bad), b"import torch\ndef f(:\n    pass\n")
        self.assertEqual(read(good), ONE_ADDED, "the other file is still done")
        rc, out, err = run("--add-noqa", "-", stdin=b"def f(:\n")
        self.assertEqual((rc, out), (2, b"def f(:\n"), "stdin: echoed as it came")

    def test_write_failure_exit_2_file_unchanged(self):
        path = self.file("linked.py", ONE)
        os.link(path, os.path.join(self.tmp, "other.py"))
        rc, out, err = run("--add-noqa", path)
        self.assertEqual(rc, 2)
        self.assertEqual(err.decode(), f"{path}: error: no suppressions added, the file is as it was: it has 2 "
                         "hard links, and replacing it would leave the other names with the old text\n"
                         "tpf-analyze: --add-noqa: nothing to suppress\n")
        self.assertEqual(read(path), ONE)

    def test_utf8_bom_kept(self):
        path = self.file("bom.py", b"\xef\xbb\xbf" + ONE)
        rc, _, err = run("--add-noqa", path)
        self.assertEqual((rc, read(path)), (0, b"\xef\xbb\xbf" + ONE_ADDED), err)

    def test_declared_encoding_not_rewritten(self):
        data = b"# -*- coding: latin-1 -*-\ns = '\xe9'\n" + ONE
        path = self.file("latin.py", data)
        rc, _, err = run("--add-noqa", path)
        self.assertEqual(rc, 2)
        self.assertIn(b"no suppressions added: the file is decoded from its declared encoding", err)
        self.assertEqual(read(path), data)

    def test_usage_errors(self):
        path = self.file("x.py", b"x = 1\n")
        for args in (["--add-noqa", "--fix"], ["--add-noqa", "--diff"], ["--add-noqa", "--statistics"],
                     ["--add-noqa", "--dump-ast"], ["--statistics", "--format", "sarif"],
                     ["--statistics", "--format", "github"], ["--statistics", "--diff"]):
            rc, out, err = run(*args, path)
            self.assertEqual(rc, 2, args)
            self.assertTrue(err.startswith(b"tpf-analyze: error: "), (args, err))


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
