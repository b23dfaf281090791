#!/usr/bin/env python3
"""End-to-end tests of the tpf-analyze binary: exit codes, text and JSON
output, rule selection, --explain / --list-rules, stdin, directories, and
a syntax error or a missing path next to files that are still analyzed.

usage: cli_test.py TPF_ANALYZE SOURCE_ROOT
"""
import json
import os
import re
import subprocess
import sys
import tempfile
import unittest

TPF = None
ROOT = None

# One TPF003 (error) and one TPF006 (error) finding.
BUGGY = """\
import torch
import torch.nn as nn
import torch.nn.functional as F
torch.manual_seed(0)
model = nn.Linear(10, 3)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
crit = nn.CrossEntropyLoss()
for x, y in loader:
    probs = F.softmax(model(x), dim=1)
    loss = crit(probs, y)
    loss.backward()
    opt.step()
"""

# Only a warning: log_softmax into CrossEntropyLoss (TPF006 at warning).
WARNING_ONLY = """\
import torch.nn as nn
import torch.nn.functional as F

model = nn.Linear(10, 3)
loss = nn.CrossEntropyLoss()(F.log_softmax(model(x), dim=1), y)
"""

CLEAN = """\
import torch
torch.manual_seed(0)
model = torch.nn.Linear(10, 3)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for x, y in loader:
    opt.zero_grad()
    loss = torch.nn.functional.cross_entropy(model(x), y)
    loss.backward()
    opt.step()
"""

SYNTAX_ERROR = "def f(:\n    pass\n"


def run(*args, stdin=None):
    p = subprocess.run([TPF, *args], input=stdin, capture_output=True, text=True,
                       env={**os.environ, "NO_COLOR": ""}, timeout=60)
    return p.returncode, p.stdout, p.stderr


class Files:
    """A temporary directory with named files."""

    def __init__(self, **files):
        self.tmp = tempfile.TemporaryDirectory()
        self.files = {}
        for name, text in files.items():
            path = os.path.join(self.tmp.name, name.replace("__", "/") + ".py")
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)
            self.files[name] = path

    def __getitem__(self, k):
        return self.files[k]

    @property
    def dir(self):
        return self.tmp.name

    def __enter__(self):
        return self

    def __exit__(self, *a):
        self.tmp.cleanup()


class Cli(unittest.TestCase):
    def test_findings_exit_1_with_text_frames_and_summary(self):
        with Files(buggy=BUGGY) as fs:
            rc, out, err = run(fs["buggy"])
        self.assertEqual(rc, 1, err)
        self.assertIn(":11:5: error TPF003 ", out)
        self.assertIn(":9:13: error TPF006 ", out)
        self.assertIn("^^^^", out)
        self.assertIn("= help: ", out)
        self.assertIn("found 2 problems (2 errors) in 1 of 1 file", out)
        self.assertNotIn("\x1b[", out)  # not a terminal: no colour
        # sorted by offset: TPF006 (line 9) before TPF003 (line 11)
        self.assertLess(out.index("TPF006"), out.index("TPF003"))

    def test_clean_exit_0(self):
        with Files(clean=CLEAN) as fs:
            rc, out, err = run(fs["clean"])
        self.assertEqual(rc, 0, err)
        self.assertEqual(out.strip(), "no problems found in 1 file")

    def test_quiet_prints_only_header_lines(self):
        with Files(buggy=BUGGY) as fs:
            rc, out, _ = run("--quiet", fs["buggy"])
        self.assertEqual(rc, 1)
        lines = out.splitlines()
        self.assertEqual(len(lines), 2)
        self.assertTrue(all(" error TPF" in l for l in lines))

    def test_json_contract(self):
        with Files(buggy=BUGGY, clean=CLEAN) as fs:
            rc, out, err = run("--format", "json", fs["buggy"], fs["clean"])
        self.assertEqual(rc, 1, err)
        doc = json.loads(out)
        self.assertEqual(list(doc), ["version", "files", "diagnostics", "estimates"])
        self.assertEqual(doc["version"], 1)
        self.assertEqual(doc["files"], 2)
        self.assertEqual(doc["estimates"], [])
        self.assertEqual(len(doc["diagnostics"]), 2)
        keys = ["rule", "severity", "path", "line", "column", "end_line", "end_column",
                "message", "help", "fix"]
        for d in doc["diagnostics"]:
            self.assertEqual(list(d), keys)
            self.assertTrue(d["path"].endswith("buggy.py"))
            self.assertGreaterEqual(d["line"], 1)
            self.assertGreaterEqual(d["column"], 1)
        d = [d for d in doc["diagnostics"] if d["rule"] == "TPF003"][0]
        # `loss.backward()` on line 11, columns 5..20 (end exclusive)
        self.assertEqual((d["line"], d["column"], d["end_line"], d["end_column"]), (11, 5, 11, 20))
        self.assertEqual(d["severity"], "error")
        self.assertFalse(d["message"].endswith("."))
        self.assertTrue(d["message"][0].islower() or d["message"][0] == "`")

    def test_json_clean(self):
        with Files(clean=CLEAN) as fs:
            rc, out, _ = run("--format", "json", fs["clean"])
        self.assertEqual(rc, 0)
        self.assertEqual(json.loads(out),
                         {"version": 1, "files": 1, "diagnostics": [], "estimates": []})

    def test_select_and_ignore(self):
        with Files(buggy=BUGGY) as fs:
            _, out, _ = run("--format", "json", "--select", "TPF006", fs["buggy"])
            self.assertEqual({d["rule"] for d in json.loads(out)["diagnostics"]}, {"TPF006"})
            _, out, _ = run("--format", "json", "--ignore", "TPF006", fs["buggy"])
            self.assertEqual({d["rule"] for d in json.loads(out)["diagnostics"]}, {"TPF003"})
            _, out, _ = run("--format", "json", "--select", "backward_without_zero_grad",
                            fs["buggy"])
            self.assertEqual({d["rule"] for d in json.loads(out)["diagnostics"]}, {"TPF003"})
            rc, out, _ = run("--select", "TPF003", "--ignore", "TPF003", fs["buggy"])
            self.assertEqual(rc, 0)
            rc, _, err = run("--select", "TPF099", fs["buggy"])
            self.assertEqual(rc, 2)
            self.assertIn("unknown rule 'TPF099'", err)
            # TPF013 runs only with --target: selected alone without one, nothing fires.
            rc, out, err = run("--select", "TPF013", fs["buggy"])
            self.assertEqual(rc, 0)
            self.assertNotIn("TPF013", out)

    def test_fail_on(self):
        with Files(warn=WARNING_ONLY, buggy=BUGGY) as fs:
            rc, out, _ = run(fs["warn"])
            self.assertEqual(rc, 0)  # default --fail-on error: a warning does not fail
            self.assertIn("warning TPF006", out)
            rc, _, _ = run("--fail-on", "warning", fs["warn"])
            self.assertEqual(rc, 1)
            rc, _, _ = run("--fail-on", "never", fs["buggy"])
            self.assertEqual(rc, 0)
            rc, _, err = run("--fail-on", "sometimes", fs["buggy"])
            self.assertEqual(rc, 2)
            self.assertIn("--fail-on", err)

    def test_syntax_error_reported_and_other_files_analyzed(self):
        with Files(a_broken=SYNTAX_ERROR, b_buggy=BUGGY) as fs:
            rc, out, err = run("--format", "json", fs["a_broken"], fs["b_buggy"])
        self.assertEqual(rc, 2)
        self.assertRegex(err, r"a_broken\.py:1:\d+: SyntaxError: ")
        doc = json.loads(out)
        self.assertEqual(doc["files"], 1)
        # the findings of b, and the file a could not be analyzed (its first error)
        self.assertEqual([d["rule"] for d in doc["diagnostics"]], ["TPF000", "TPF006", "TPF003"])

    def test_missing_path_reported_and_other_files_analyzed(self):
        with Files(buggy=BUGGY) as fs:
            missing = os.path.join(fs.dir, "nope.py")
            rc, out, err = run(missing, fs["buggy"])
        self.assertEqual(rc, 2)
        self.assertIn("nope.py", err)
        self.assertIn("error TPF003", out)
        self.assertIn("1 of 1 file", out)

    def test_directory_recursion(self):
        with Files(top=CLEAN, pkg__inner=BUGGY, pkg__deeper__clean=CLEAN) as fs:
            with open(os.path.join(fs.dir, "notes.txt"), "w") as f:
                f.write("not python")
            rc, out, _ = run("--format", "json", fs.dir)
        self.assertEqual(rc, 1)
        doc = json.loads(out)
        self.assertEqual(doc["files"], 3)
        self.assertTrue(all(d["path"].endswith("pkg/inner.py") for d in doc["diagnostics"]))

    def test_stdin(self):
        rc, out, err = run("--stdin-filename", "train.py", "-", stdin=BUGGY)
        self.assertEqual(rc, 1, err)
        self.assertIn("train.py:11:5: error TPF003", out)
        rc, out, _ = run("-", stdin=CLEAN)
        self.assertEqual(rc, 0)

    def test_explain(self):
        rc, out, _ = run("--explain", "TPF003")
        self.assertEqual(rc, 0)
        self.assertTrue(out.startswith("TPF003 backward_without_zero_grad"))
        for section in ("What it finds", "Why it costs", "Example", "Fix", "Not flagged"):
            self.assertIn(section, out)
        rc, out2, _ = run("--explain", "backward_without_zero_grad")
        self.assertEqual((rc, out2), (0, out))
        rc, out, _ = run("--explain", "TPF013")
        self.assertEqual(rc, 0)
        self.assertIn("status: stable", out)
        rc, _, err = run("--explain", "TPF999")
        self.assertEqual(rc, 2)
        self.assertIn("unknown rule", err)

    def test_tpf013_only_with_a_target(self):
        script = os.path.join(ROOT, "test", "checks", "TPF013", "fires_resnet152_t4.py")
        rc, out, _ = run("--format", "json", "--target", "t4", script)
        self.assertEqual(rc, 1)
        doc = json.loads(out)
        d = [d for d in doc["diagnostics"] if d["rule"] == "TPF013"]
        self.assertEqual(len(d), 1)
        self.assertEqual((d[0]["line"], d[0]["column"], d[0]["severity"]), (23, 9, "error"))
        self.assertIn("usable on `t4`", d[0]["message"])
        self.assertEqual(doc["estimates"][0]["verdict"], "oom")
        rc, out, _ = run("--format", "json", "--target", "h100", "--batch-size", "8", script)
        self.assertEqual(rc, 0)
        self.assertEqual(json.loads(out)["estimates"][0]["verdict"], "fits")
        rc, out, _ = run("--format", "json", script)
        self.assertEqual((rc, json.loads(out)["diagnostics"]), (0, []))

    def test_deepspeed_config_stays_inside_the_project(self):
        script = ("import deepspeed, torch, torch.nn as nn\n"
                  "model = nn.Sequential(*[nn.Linear(1024, 1024) for _ in range(4)])\n"
                  "engine, opt, _, _ = deepspeed.initialize(model=model, model_parameters=model.parameters(),\n"
                  "                                         config=%r)\n"
                  "x = torch.randn(4, 1024)\n"
                  "loss = engine(x).pow(2).mean()\n"
                  "engine.backward(loss)\n"
                  "engine.step()\n")
        cfg = json.dumps({"train_micro_batch_size_per_gpu": 4, "zero_optimization": {"stage": 3}})
        with tempfile.TemporaryDirectory() as d:
            proj = os.path.join(d, "proj")
            os.makedirs(os.path.join(proj, "configs"))
            with open(os.path.join(proj, "pyproject.toml"), "w") as f:
                f.write("[project]\nname = 'x'\n")
            with open(os.path.join(proj, "configs", "ds.json"), "w") as f:
                f.write(cfg)
            with open(os.path.join(d, "outside.json"), "w") as f:
                f.write(cfg)
            def estimate(config_path):
                path = os.path.join(proj, "train.py")
                with open(path, "w") as f:
                    f.write(script % config_path)
                rc, out, _ = run("--format", "json", "--target", "p4d.24xlarge", path)
                self.assertEqual(rc, 0)
                return json.loads(out)["estimates"][0]["config"]
            inside = estimate("configs/ds.json")
            self.assertEqual(inside["sharding"]["value"], "ZeRO-3")
            self.assertEqual(inside["unknowns"], [])
            for p in ("../outside.json", os.path.join(d, "outside.json")):
                out = estimate(p)
                self.assertEqual(out["sharding"]["value"], "none")
                self.assertTrue(any("outside the analyzed project" in u["what"] for u in out["unknowns"]),
                                out["unknowns"])
            out = estimate("/etc/passwd")
            self.assertTrue(any("outside the analyzed project" in u["what"] for u in out["unknowns"]))

    def test_list_rules(self):
        rc, out, _ = run("--list-rules")
        self.assertEqual(rc, 0)
        lines = out.splitlines()
        # Every row of checks/registry.def, in table order.
        with open(os.path.join(ROOT, "checks", "registry.def")) as f:
            codes = re.findall(r"^TPF_RULE\((TPF\d{3}),", f.read(), re.M)
        self.assertEqual([l.split()[0] for l in lines], codes)
        self.assertIn("stable", lines[2])
        self.assertIn("stable", lines[12])
        rc, out, _ = run("--list-rules", "--format", "json")
        rules = json.loads(out)
        self.assertEqual(len(rules), len(codes))
        self.assertEqual(list(rules[0]), ["code", "slug", "severity", "category", "status", "summary"])

    def test_usage_errors(self):
        self.assertEqual(run()[0], 2)
        self.assertEqual(run("--format", "xml", "x.py")[0], 2)
        self.assertEqual(run("--no-such-option")[0], 2)
        self.assertEqual(run("--help")[0], 0)

    def test_dump_ast_json_unchanged(self):
        with Files(buggy=BUGGY) as fs:
            rc, out, _ = run("--dump-ast", "--format", "json", fs["buggy"])
        self.assertEqual(rc, 0)
        ast = json.loads(out)
        self.assertEqual(ast["_type"], "Module")
        self.assertNotIn("diagnostics", ast)

    def test_unknown_encoding_analyzed_but_rejected_as_cpython_by_dumps(self):
        # A codec a package registers (future_fstrings): analysis reads the
        # UTF-8 bytes with a note; --dump-ast/--dump-tokens answer as CPython.
        with Files(coded="# -*- coding: future_fstrings -*-\n" + BUGGY) as fs:
            rc, out, err = run(fs["coded"])
            self.assertEqual(rc, 1)
            self.assertIn(fs["coded"] + ":1:7: UnknownEncoding: unknown encoding future_fstrings, read as UTF-8", err)
            self.assertIn("coded.py:12:5: error TPF003", out)
            for dump in ("--dump-ast", "--dump-tokens"):
                rc, out, err = run(dump, fs["coded"])
                self.assertEqual(rc, 2)
                self.assertEqual(err.splitlines()[0],
                                 fs["coded"] + ":1:1: SyntaxError: unknown encoding: future_fstrings")

    def test_colour_only_on_a_terminal(self):
        import pty

        def on_tty(*args):
            pid, fd = pty.fork()
            if pid == 0:
                os.environ.pop("NO_COLOR", None)
                os.execv(TPF, [TPF, *args])
            out = b""
            while True:
                try:
                    chunk = os.read(fd, 4096)
                except OSError:
                    break
                if not chunk:
                    break
                out += chunk
            os.waitpid(pid, 0)
            return out.decode("utf-8", "replace")

        with Files(buggy=BUGGY) as fs:
            self.assertIn("\x1b[1;31merror", on_tty(fs["buggy"]))
            self.assertNotIn("\x1b[", on_tty("--no-color", fs["buggy"]))

    def test_examples(self):
        good = os.path.join(ROOT, "examples", "good_train.py")
        bad = os.path.join(ROOT, "examples", "bad_train.py")
        rc, out, err = run(good)
        self.assertEqual(rc, 0, out + err)
        self.assertIn("no problems found", out)
        rc, out, _ = run("--format", "json", bad)
        self.assertEqual(rc, 1)
        self.assertGreaterEqual(len(json.loads(out)["diagnostics"]), 4)


if __name__ == "__main__":
    TPF, ROOT = os.path.abspath(sys.argv[1]), sys.argv[2]
    unittest.main(argv=[sys.argv[0], "-v"])
