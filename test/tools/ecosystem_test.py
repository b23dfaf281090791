#!/usr/bin/env python3
"""End-to-end tests of what makes tpf-analyze fit next to ruff and flake8
(issue 6), all through the binary: inline suppressions, the concise,
github and SARIF formats, [tool.tpf] configuration, directory walking with
.gitignore, stdin and parallel runs.

usage: ecosystem_test.py TPF_ANALYZE SOURCE_ROOT
"""
import json
import os
import re
import subprocess
import sys
import tempfile
import textwrap
import unittest

TPF = None
ROOT = None

# TPF006 on line 9 (col 13), TPF003 on line 11 (col 5).
BUGGY = """\
import torch
import torch.nn as nn
import torch.nn.functional as F

model = nn.Linear(10, 3)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
crit = nn.CrossEntropyLoss()
for x, y in loader:
    probs = F.softmax(model(x), dim=1)
    loss = crit(probs, y)
    loss.backward()
    opt.step()
"""

CLEAN = "import torch\nx = torch.zeros(3)\n"


# The rules these tests rely on; other rules (seeding, ...) may fire on the
# same snippets as they are added, so the tests pin the selection.
SEL = ["--select", "TPF003,TPF006"]


def run(*args, stdin=None, cwd=None):
    p = subprocess.run([TPF, *args], input=stdin, capture_output=True, text=True, cwd=cwd,
                       env={**os.environ, "NO_COLOR": ""}, timeout=120)
    return p.returncode, p.stdout, p.stderr


def with_comments(**by_line):
    """BUGGY with a comment appended to the given 1-based lines (l9=..., l11=...)."""
    lines = BUGGY.splitlines()
    for key, comment in by_line.items():
        n = int(key[1:])
        lines[n - 1] += "  " + comment
    return "\n".join(lines) + "\n"


class Tree:
    """A temporary directory with files given as {relative path: text}."""

    def __init__(self, files):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = os.path.realpath(self.tmp.name)
        for rel, text in files.items():
            path = os.path.join(self.dir, rel)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)

    def path(self, rel):
        return os.path.join(self.dir, rel)

    def __enter__(self):
        return self

    def __exit__(self, *a):
        self.tmp.cleanup()


def rules_of(out):
    return [(d["rule"], d["line"]) for d in json.loads(out)["diagnostics"]]


class Suppressions(unittest.TestCase):
    def findings(self, text, *args):
        with Tree({"t.py": text}) as t:
            rc, out, err = run("--isolated", *SEL, "--format", "json", *args, t.path("t.py"))
        self.assertIn(rc, (0, 1), err)
        return rules_of(out), rc

    def test_unsuppressed_baseline(self):
        self.assertEqual(self.findings(BUGGY)[0], [("TPF006", 9), ("TPF003", 11)])

    def test_tpf_ignore_with_code(self):
        got, rc = self.findings(with_comments(l9="# tpf: ignore[TPF006]"))
        self.assertEqual(got, [("TPF003", 11)])
        got, rc = self.findings(with_comments(l9="# tpf: ignore[TPF003]"))
        self.assertEqual(got, [("TPF006", 9), ("TPF003", 11)])  # wrong code: kept
        got, rc = self.findings(with_comments(l9="# TPF: Ignore[softmax_before_cross_entropy]"))
        self.assertEqual(got, [("TPF003", 11)])  # a slug, any case for the keywords

    def test_tpf_ignore_several_codes_and_blanket(self):
        got, rc = self.findings(with_comments(l9="# tpf: ignore[TPF003, TPF006]",
                                              l11="# tpf: ignore"))
        self.assertEqual((got, rc), ([], 0))

    def test_noqa_with_code(self):
        got, _ = self.findings(with_comments(l11="# noqa: TPF003"))
        self.assertEqual(got, [("TPF006", 9)])
        got, _ = self.findings(with_comments(l11="# noqa: E501,TPF003"))
        self.assertEqual(got, [("TPF006", 9)])
        # a bare noqa, or one naming only other linters' codes, is not ours
        got, _ = self.findings(with_comments(l9="# noqa", l11="# noqa: E501"))
        self.assertEqual(got, [("TPF006", 9), ("TPF003", 11)])

    def test_directive_after_another_comment(self):
        got, _ = self.findings(with_comments(l11="# type: ignore  # tpf: ignore[TPF003]"))
        self.assertEqual(got, [("TPF006", 9)])

    def test_only_the_reported_line(self):
        got, _ = self.findings(with_comments(l10="# tpf: ignore", l12="# noqa: TPF003"))
        self.assertEqual(got, [("TPF006", 9), ("TPF003", 11)])

    def test_report_unused_suppressions(self):
        text = with_comments(l9="# tpf: ignore[TPF006]", l10="# tpf: ignore",
                             l11="# noqa: TPF003, TPF006", l12="# tpf: ignore[TPF099]")
        got, rc = self.findings(text)
        self.assertEqual((got, rc), ([], 0))  # not asked: silent
        with Tree({"t.py": text}) as t:
            rc, out, err = run(*SEL, "--format", "json", "--report-unused-suppressions",
                               t.path("t.py"))
            diags = json.loads(out)["diagnostics"]
            self.assertEqual(rc, 0, err)  # warnings do not fail at --fail-on error
            self.assertEqual([(d["rule"], d["line"], d["severity"]) for d in diags],
                             [("unused-suppression", 10, "warning"),
                              ("unused-suppression", 11, "warning"),
                              ("unused-suppression", 12, "warning")])
            self.assertIn("`# tpf: ignore` suppresses nothing", diags[0]["message"])
            self.assertIn("unused suppression of `TPF006`", diags[1]["message"])
            self.assertIn("unknown rule `TPF099`", diags[2]["message"])
            # the span is the unused code itself
            line11 = text.splitlines()[10]
            self.assertEqual(diags[1]["column"], line11.index("TPF006") + 1)
            rc, _, _ = run(*SEL, "--report-unused-suppressions", "--fail-on", "warning",
                           t.path("t.py"))
            self.assertEqual(rc, 1)
            # a suppression of a rule that did not run is not called unused
            rc, out, _ = run(*SEL, "--format", "json", "--report-unused-suppressions",
                             "--ignore", "TPF006", t.path("t.py"))
            self.assertEqual([d["line"] for d in json.loads(out)["diagnostics"]], [10, 12])


# A subset of the OASIS SARIF 2.1.0 JSON schema (sarif-schema-2.1.0.json):
# the objects tpf-analyze writes, with their required properties, types,
# enums and the `additionalProperties: false` the full schema sets on them.
# The full schema is not available offline; each definition here copies the
# constraints of the one with the same name there.
_MSG = {"type": "object", "additionalProperties": False,
        "properties": {"text": {"type": "string"}, "markdown": {"type": "string"},
                       "id": {"type": "string"}, "arguments": {"type": "array"}}}
_LEVEL = {"enum": ["none", "note", "warning", "error"]}
_REGION = {"type": "object", "additionalProperties": False,
           "properties": {k: {"type": "integer", "minimum": 1}
                          for k in ("startLine", "startColumn", "endLine", "endColumn")}}
_ARTIFACT = {"type": "object", "additionalProperties": False,
             "properties": {"uri": {"type": "string", "format": "uri-reference"},
                            "uriBaseId": {"type": "string"}, "index": {"type": "integer"}}}
_LOCATION = {"type": "object", "additionalProperties": False,
             "properties": {
                 "id": {"type": "integer", "minimum": -1},
                 "message": _MSG,
                 "physicalLocation": {
                     "type": "object", "additionalProperties": False,
                     "properties": {"artifactLocation": _ARTIFACT, "region": _REGION}}}}
_RULE = {"type": "object", "additionalProperties": False, "required": ["id"],
         "properties": {
             "id": {"type": "string"}, "name": {"type": "string"},
             "shortDescription": dict(_MSG, required=["text"]),
             "fullDescription": dict(_MSG, required=["text"]),
             "help": dict(_MSG, required=["text"]),
             "helpUri": {"type": "string"},
             "defaultConfiguration": {
                 "type": "object", "additionalProperties": False,
                 "properties": {"enabled": {"type": "boolean"}, "level": _LEVEL,
                                "rank": {"type": "number"}, "parameters": {"type": "object"}}},
             "properties": {"type": "object"}}}
_FIX = {"type": "object", "additionalProperties": False, "required": ["artifactChanges"],
        "properties": {
            "description": dict(_MSG, required=["text"]),
            "artifactChanges": {"type": "array", "minItems": 1, "items": {
                "type": "object", "additionalProperties": False,
                "required": ["artifactLocation", "replacements"],
                "properties": {
                    "artifactLocation": _ARTIFACT,
                    "replacements": {"type": "array", "minItems": 1, "items": {
                        "type": "object", "additionalProperties": False,
                        "required": ["deletedRegion"],
                        "properties": {
                            "deletedRegion": _REGION,
                            "insertedContent": {
                                "type": "object", "additionalProperties": False,
                                "properties": {"text": {"type": "string"},
                                               "binary": {"type": "string"}}}}}}}}},
            "properties": {"type": "object"}}}
SARIF_SCHEMA = {
    "type": "object", "additionalProperties": False, "required": ["version", "runs"],
    "properties": {
        "$schema": {"type": "string", "format": "uri"},
        "version": {"enum": ["2.1.0"]},
        "runs": {"type": "array", "items": {
            "type": "object", "additionalProperties": False, "required": ["tool"],
            "properties": {
                "tool": {"type": "object", "additionalProperties": False, "required": ["driver"],
                         "properties": {"driver": {
                             "type": "object", "additionalProperties": False, "required": ["name"],
                             "properties": {"name": {"type": "string"},
                                            "version": {"type": "string"},
                                            "semanticVersion": {"type": "string"},
                                            "informationUri": {"type": "string"},
                                            "rules": {"type": "array", "items": _RULE}}}}},
                "originalUriBaseIds": {"type": "object", "additionalProperties": _ARTIFACT},
                "columnKind": {"enum": ["utf16CodeUnits", "unicodeCodePoints"]},
                "results": {"type": "array", "items": {
                    "type": "object", "additionalProperties": False, "required": ["message"],
                    "properties": {
                        "ruleId": {"type": "string"},
                        "ruleIndex": {"type": "integer", "minimum": -1},
                        "level": _LEVEL,
                        "message": dict(_MSG, required=["text"]),
                        "locations": {"type": "array", "items": _LOCATION},
                        "relatedLocations": {"type": "array", "items": _LOCATION},
                        "fixes": {"type": "array", "items": _FIX},
                        "properties": {"type": "object"}}}},
                # SARIF 2.1.0 section 3.20 (invocation), 3.58 (notification)
                "invocations": {"type": "array", "items": {
                    "type": "object", "additionalProperties": False,
                    "required": ["executionSuccessful"],
                    "properties": {
                        "executionSuccessful": {"type": "boolean"},
                        "toolExecutionNotifications": {"type": "array", "items": {
                            "type": "object", "additionalProperties": False,
                            "required": ["message"],
                            "properties": {
                                "message": dict(_MSG, required=["text"]),
                                "level": _LEVEL,
                                "locations": {"type": "array", "items": _LOCATION},
                                "descriptor": {
                                    "type": "object", "additionalProperties": False,
                                    "properties": {"id": {"type": "string"},
                                                   "index": {"type": "integer"}}}}}}}}}}}}}}


def validate(doc, schema, where="$"):
    """The keywords SARIF_SCHEMA uses: type, enum, required, properties,
    additionalProperties (false or a schema), items, minItems, minimum."""
    types = {"object": dict, "array": list, "string": str, "boolean": bool,
             "integer": int, "number": (int, float)}
    if "type" in schema:
        t = types[schema["type"]]
        ok = isinstance(doc, t) and not (schema["type"] in ("integer", "number")
                                         and isinstance(doc, bool))
        assert ok, f"{where}: expected {schema['type']}, got {doc!r:.60}"
    if "enum" in schema:
        assert doc in schema["enum"], f"{where}: {doc!r} not in {schema['enum']}"
    if "minimum" in schema:
        assert doc >= schema["minimum"], f"{where}: {doc} < {schema['minimum']}"
    if isinstance(doc, dict):
        for k in schema.get("required", []):
            assert k in doc, f"{where}: missing required {k!r}"
        props = schema.get("properties", {})
        extra = schema.get("additionalProperties", True)
        for k, v in doc.items():
            if k in props:
                validate(v, props[k], f"{where}.{k}")
            elif extra is False:
                raise AssertionError(f"{where}: property {k!r} not allowed")
            elif isinstance(extra, dict):
                validate(v, extra, f"{where}.{k}")
    if isinstance(doc, list) and "minItems" in schema:
        assert len(doc) >= schema["minItems"], f"{where}: fewer than {schema['minItems']} items"
    if isinstance(doc, list) and "items" in schema:
        for i, v in enumerate(doc):
            validate(v, schema["items"], f"{where}[{i}]")


class Formats(unittest.TestCase):
    def test_concise_one_line_each(self):
        with Tree({"a b.py": BUGGY}) as t:
            rc, out, _ = run(*SEL, "--format", "concise", t.path("a b.py"))
        self.assertEqual(rc, 1)
        lines = out.splitlines()
        self.assertEqual(len(lines), 2)
        self.assertRegex(lines[0], r"a b\.py:9:13: error TPF006 softmax ")
        self.assertRegex(lines[1], r"a b\.py:11:5: error TPF003 `loss\.backward\(\)` ")

    def test_files_not_analyzed_are_in_every_machine_format(self):
        files = {"bad.py": "x = (\n", "ok.py": BUGGY}
        with Tree(files) as t:
            rc, out, err = run("--isolated", *SEL, "--format", "json", "bad.py", "ok.py",
                               "missing.py", cwd=t.dir)
            self.assertEqual(rc, 2, err)
            got = [(d["rule"], d["path"], d["line"], d["column"], d["message"])
                   for d in json.loads(out)["diagnostics"]]
            self.assertEqual(got[0], ("TPF000", "bad.py", 1, 5, "SyntaxError: '(' was never closed"))
            self.assertEqual(got[1], ("TPF000", "missing.py", 1, 1,
                                      "OSError: No such file or directory"))
            self.assertEqual([g[0] for g in got[2:]], ["TPF006", "TPF003"])
            rc, out, err = run("--isolated", *SEL, "--format", "sarif", "bad.py", "ok.py", cwd=t.dir)
            doc = json.loads(out)
            validate(doc, SARIF_SCHEMA)
            inv = doc["runs"][0]["invocations"][0]
            self.assertFalse(inv["executionSuccessful"])
            [n] = inv["toolExecutionNotifications"]
            self.assertEqual((n["level"], n["descriptor"]["id"]), ("error", "TPF000"))
            self.assertEqual(n["locations"][0]["physicalLocation"]["region"],
                             {"startLine": 1, "startColumn": 5})
            self.assertEqual(len(doc["runs"][0]["results"]), 2)
            rc, out, err = run("--isolated", *SEL, "--format", "github", "bad.py", cwd=t.dir)
            self.assertEqual(out, "::error file=bad.py,line=1,col=5,title=TPF000 SyntaxError::"
                                  "SyntaxError: '(' was never closed (the file was not analyzed)\n")
            # a clean run is a successful invocation
            rc, out, err = run("--isolated", *SEL, "--format", "sarif", "ok.py", cwd=t.dir)
            self.assertTrue(json.loads(out)["runs"][0]["invocations"][0]["executionSuccessful"])

    def test_github_workflow_commands(self):
        with Tree({"x,y.py": BUGGY}) as t:
            rc, out, _ = run(*SEL, "--format", "github", "x,y.py", cwd=t.dir)
            self.assertEqual(rc, 1)
            lines = out.splitlines()
            self.assertEqual(len(lines), 2)
            m = re.fullmatch(r"::error file=x%2Cy\.py,line=11,col=5,endLine=11,endColumn=20,"
                             r"title=TPF003::(.*)", lines[1])
            self.assertTrue(m, lines[1])
            self.assertNotIn("\n", m.group(1))
            self.assertIn("%0Ahelp: call `opt.zero_grad(set_to_none=True)`", m.group(1))
            # warnings are ::warning
            rc, out, _ = run(*SEL, "--format", "github", "--report-unused-suppressions", "-",
                             "--stdin-filename", "s.py", stdin="x = 1  # tpf: ignore\n", cwd=t.dir)
            self.assertTrue(out.startswith("::warning file=s.py,line=1,col=10,"), out)
            self.assertIn("title=unused-suppression::", out)

    def sarif(self, *args, cwd=None, files=None):
        rc, out, err = run(*args, cwd=cwd)
        self.assertIn(rc, (0, 1), err)
        doc = json.loads(out)
        validate(doc, SARIF_SCHEMA)
        try:  # the general validator too, when it is installed
            import jsonschema
            jsonschema.Draft7Validator(SARIF_SCHEMA).validate(doc)
        except ImportError:
            pass
        return doc

    def test_sarif_validates_and_describes_every_rule(self):
        with Tree({"pkg/train.py": BUGGY, "clean.py": CLEAN}) as t:
            doc = self.sarif(*SEL, "--format", "sarif", "pkg/train.py", "clean.py", cwd=t.dir)
            self.assertEqual(doc["version"], "2.1.0")
            run_ = doc["runs"][0]
            rules = run_["tool"]["driver"]["rules"]
            _, listed, _ = run("--list-rules", "--format", "json")
            listed = json.loads(listed)
            self.assertEqual([r["id"] for r in rules], [r["code"] for r in listed])
            for r, l in zip(rules, listed):
                self.assertEqual(r["name"], l["slug"])
                self.assertEqual(r["shortDescription"]["text"], l["summary"])
                self.assertIn("What it finds", r["help"]["text"])
                self.assertEqual(r["defaultConfiguration"]["level"], l["severity"])
            self.assertEqual(run_["columnKind"], "unicodeCodePoints")
            self.assertEqual(run_["originalUriBaseIds"]["%SRCROOT%"]["uri"],
                             "file://" + t.dir + "/")
            res = run_["results"]
            self.assertEqual([(r["ruleId"], r["level"]) for r in res],
                             [("TPF006", "error"), ("TPF003", "error")])
            r = res[1]
            self.assertEqual(rules[r["ruleIndex"]]["id"], "TPF003")
            loc = r["locations"][0]["physicalLocation"]
            self.assertEqual(loc["artifactLocation"], {"uri": "pkg/train.py", "uriBaseId": "%SRCROOT%"})
            self.assertEqual(loc["region"],
                             {"startLine": 11, "startColumn": 5, "endLine": 11, "endColumn": 20})
            self.assertEqual(r["relatedLocations"][0]["message"]["text"], "the optimizer steps here")
            # an absolute path is a file:// URI; no findings is an empty result list
            doc = self.sarif(*SEL, "--format", "sarif", t.path("clean.py"))
            self.assertEqual(doc["runs"][0]["results"], [])
            doc = self.sarif(*SEL, "--format", "sarif", t.path("pkg/train.py"))
            uri = doc["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]
            self.assertEqual(uri, {"uri": "file://" + t.path("pkg/train.py")})

    def test_validator_rejects_bad_logs(self):
        with Tree({"t.py": BUGGY}) as t:
            good = self.sarif(*SEL, "--format", "sarif", t.path("t.py"))
        for mutate in (lambda d: d.update(version="2.0.0"),
                       lambda d: d["runs"][0]["results"][0].update(level="fatal"),
                       lambda d: d["runs"][0]["results"][0].update(bogus=1),
                       lambda d: d["runs"][0]["tool"]["driver"].pop("name"),
                       lambda d: d["runs"][0]["results"][0]["locations"][0]["physicalLocation"]
                       ["region"].update(startLine=0)):
            bad = json.loads(json.dumps(good))
            mutate(bad)
            with self.assertRaises(AssertionError):
                validate(bad, SARIF_SCHEMA)

    def test_unknown_format(self):
        rc, _, err = run("--format", "xml", "x.py")
        self.assertEqual(rc, 2)
        self.assertIn("expected text, json, concise, github or sarif", err)


PYPROJECT = """\
[project]
name = "demo"

[tool.tpf]
select = ["TPF003", "TPF006"]
fail-on = "warning"
severity = { TPF006 = "warning" }
exclude = ["generated/", "*_pb2.py", "/src/gen/**"]
per-file-ignores = { "scripts/*.py" = ["TPF003"] }
"""


# BUGGY after --fix: TPF006 drops the softmax, TPF003 clears after the step.
BUGGY_FIXED = BUGGY.replace("F.softmax(model(x), dim=1)", "model(x)") + \
    "    opt.zero_grad(set_to_none=True)\n"

BUGGY_DIFF = """\
--- {path}
+++ {path}
@@ -6,7 +6,8 @@
 opt = torch.optim.SGD(model.parameters(), lr=0.1)
 crit = nn.CrossEntropyLoss()
 for x, y in loader:
-    probs = F.softmax(model(x), dim=1)
+    probs = model(x)
     loss = crit(probs, y)
     loss.backward()
     opt.step()
+    opt.zero_grad(set_to_none=True)
"""


def read_bytes(path):
    with open(path, "rb") as f:
        return f.read()


def undefined_names(path):
    """pyflakes' undefined names in the file (Debian's python3-pyflakes, run
    by /usr/bin/python3), or None where it is not installed."""
    py = "/usr/bin/python3"
    if not os.path.exists(py) or subprocess.run([py, "-c", "import pyflakes"],
                                                capture_output=True).returncode != 0:
        return None
    p = subprocess.run([py, "-m", "pyflakes", path], capture_output=True, text=True)
    return set(re.findall(r"undefined name '([^']+)'", p.stdout))


class Autofix(unittest.TestCase):
    def test_diff_prints_and_changes_nothing(self):
        with Tree({"t.py": BUGGY}) as t:
            rc, out, err = run("--isolated", *SEL, "--diff", "t.py", cwd=t.dir)
            self.assertEqual(rc, 1, err)
            self.assertEqual(out, BUGGY_DIFF.format(path="t.py"))
            self.assertIn("would fix 2 problems in 1 file", err)
            self.assertEqual(read_bytes(t.path("t.py")).decode(), BUGGY)
            # applies with patch -p0, like ruff's
            if subprocess.run(["which", "patch"], capture_output=True).returncode == 0:
                subprocess.run(["patch", "-s", "-p0"], input=out, text=True, cwd=t.dir, check=True)
                self.assertEqual(read_bytes(t.path("t.py")).decode(), BUGGY_FIXED)
            rc, out, err = run("--isolated", *SEL, "--diff", "t.py", cwd=t.dir)
            self.assertEqual((rc, out), (0, ""), err)

    def test_fix_writes_reanalyzes_and_reports_what_is_left(self):
        with Tree({"t.py": BUGGY, "clean.py": CLEAN}) as t:
            rc, out, err = run("--isolated", "--select", "TPF003,TPF006,TPF012", "--fix",
                               "t.py", "clean.py", cwd=t.dir)
            self.assertEqual(read_bytes(t.path("t.py")).decode(), BUGGY_FIXED)
            self.assertEqual(read_bytes(t.path("clean.py")).decode(), CLEAN)
            self.assertEqual(rc, 0, out + err)
            self.assertIn("fixed 2 problems", out)
            # a second run has nothing left to fix
            rc, out, _ = run("--isolated", *SEL, "--fix", "t.py", cwd=t.dir)
            self.assertEqual(rc, 0)
            self.assertIn("no problems found in 1 file", out)
            self.assertNotIn("fixed", out)

    def test_text_and_json_show_the_fix(self):
        with Tree({"t.py": BUGGY}) as t:
            rc, out, _ = run("--isolated", *SEL, "t.py", cwd=t.dir)
            self.assertIn("= fix: add `opt.zero_grad(set_to_none=True)` after the step", out)
            self.assertIn("2 fixable with --fix", out)
            rc, out, _ = run("--isolated", *SEL, "--format", "json", "t.py", cwd=t.dir)
            d = {x["rule"]: x for x in json.loads(out)["diagnostics"]}
            self.assertEqual(d["TPF003"]["fix"], {
                "title": "add `opt.zero_grad(set_to_none=True)` after the step",
                "edits": [{"line": 13, "column": 1, "end_line": 13, "end_column": 1,
                           "content": "    opt.zero_grad(set_to_none=True)\n"}]})
            self.assertEqual(d["TPF006"]["fix"]["edits"], [
                {"line": 9, "column": 13, "end_line": 9, "end_column": 39, "content": "model(x)"}])

    def test_sarif_fixes_validate(self):
        with Tree({"t.py": BUGGY}) as t:
            rc, out, _ = run("--isolated", *SEL, "--format", "sarif", "t.py", cwd=t.dir)
            doc = json.loads(out)
            validate(doc, SARIF_SCHEMA)
            fix = doc["runs"][0]["results"][0]["fixes"][0]
            change = fix["artifactChanges"][0]
            self.assertEqual(change["artifactLocation"], {"uri": "t.py", "uriBaseId": "%SRCROOT%"})
            self.assertEqual(change["replacements"], [{
                "deletedRegion": {"startLine": 9, "startColumn": 13, "endLine": 9, "endColumn": 39},
                "insertedContent": {"text": "model(x)"}}])

    def test_fix_stdin_prints_the_source(self):
        rc, out, err = run("--isolated", *SEL, "--fix", "-", "--stdin-filename", "s.py",
                           stdin=BUGGY)
        self.assertEqual(out, BUGGY_FIXED)
        self.assertIn("fixed 2 problems", err)
        self.assertEqual(rc, 0)

    def test_fix_stdin_echoes_what_it_does_not_fix(self):
        # a filter: nothing to fix, a syntax error, a declared encoding
        for text, want_rc in [(CLEAN, 0), ("x = (\n", 2), ("# coding: latin-1\n" + BUGGY, 1)]:
            rc, out, err = run("--isolated", *SEL, "--fix", "-", stdin=text)
            self.assertEqual(out, text, err)
            self.assertEqual(rc, want_rc, err)

    def test_fix_replaces_the_file_keeping_mode_and_links(self):
        with Tree({"t.py": BUGGY, "real.py": BUGGY}) as t:
            os.chmod(t.path("t.py"), 0o640)
            os.symlink("real.py", t.path("link.py"))
            rc, out, err = run("--isolated", *SEL, "--fix", "t.py", "link.py", cwd=t.dir)
            self.assertEqual(rc, 0, out + err)
            self.assertEqual(read_bytes(t.path("t.py")).decode(), BUGGY_FIXED)
            self.assertEqual(os.stat(t.path("t.py")).st_mode & 0o777, 0o640)
            # the link stays a link; its target is fixed
            self.assertTrue(os.path.islink(t.path("link.py")))
            self.assertEqual(read_bytes(t.path("real.py")).decode(), BUGGY_FIXED)
            self.assertEqual(sorted(os.listdir(t.dir)), ["link.py", "real.py", "t.py"])

    def test_fix_that_cannot_write_keeps_the_original_and_exits_2(self):
        big = BUGGY + "# padding\n" * 2000  # 20 KB, over the 8 KiB file-size limit below
        with Tree({"t.py": big, "a.py": BUGGY}) as t:
            def limit():
                import resource, signal
                signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
                resource.setrlimit(resource.RLIMIT_FSIZE, (8192, 8192))
            p = subprocess.run([TPF, "--isolated", *SEL, "--fix", "t.py"], cwd=t.dir,
                               capture_output=True, text=True, preexec_fn=limit, timeout=120)
            self.assertEqual(p.returncode, 2, p.stdout + p.stderr)
            self.assertIn("t.py: error: not fixed, the file is as it was: cannot write: File too large",
                          p.stderr)
            self.assertEqual(read_bytes(t.path("t.py")).decode(), big)
            self.assertEqual(sorted(os.listdir(t.dir)), ["a.py", "t.py"])  # no temporary left
            # a file with two names is not split into two files
            os.link(t.path("a.py"), t.path("b.py"))
            rc, out, err = run("--isolated", *SEL, "--fix", "a.py", cwd=t.dir)
            self.assertEqual(rc, 2, out + err)
            self.assertIn("a.py: error: not fixed, the file is as it was: it has 2 hard links", err)
            self.assertEqual(read_bytes(t.path("b.py")).decode(), BUGGY)

    def test_bytes_kept_crlf_bom_and_comments(self):
        src = ("\ufeff# header comment\r\n" + BUGGY.replace("\n", "  # keep\r\n")).encode()
        with Tree({}) as t:
            with open(t.path("w.py"), "wb") as f:
                f.write(src)
            rc, out, err = run("--isolated", *SEL, "--fix", "w.py", cwd=t.dir)
            self.assertEqual(rc, 0, out + err)
            want = src.replace(b"F.softmax(model(x), dim=1)", b"model(x)") + \
                b"    opt.zero_grad(set_to_none=True)\r\n"
            self.assertEqual(read_bytes(t.path("w.py")), want)

    def test_suppressed_findings_are_not_fixed(self):
        text = with_comments(l9="# tpf: ignore[TPF006]")
        with Tree({"t.py": text}) as t:
            rc, out, err = run("--isolated", *SEL, "--fix", "t.py", cwd=t.dir)
            self.assertEqual(rc, 0, out + err)
            got = read_bytes(t.path("t.py")).decode()
            self.assertIn("F.softmax(model(x), dim=1)  # tpf: ignore[TPF006]", got)
            self.assertTrue(got.endswith("    opt.step()\n    opt.zero_grad(set_to_none=True)\n"))

    def test_no_fix_where_it_would_be_unsure(self):
        # one-line bodies and pos_weight (BCELoss has none) are left alone
        text = BUGGY.replace("    loss.backward()\n    opt.step()\n",
                             "    loss.backward(); opt.step()\n")
        with Tree({"t.py": text}) as t:
            rc, out, err = run("--isolated", "--select", "TPF003", "--diff", "t.py", cwd=t.dir)
            self.assertEqual((rc, out), (0, ""), err)

    def test_every_positive_fixture(self):
        """Each fires*.py fixture: --diff equals its golden <name>.diff (none
        without fixes), --fix gives a file that parses, in which every fixed
        finding is gone and nothing new appears."""
        update = os.environ.get("TPF_UPDATE_GOLDEN") not in (None, "", "0")
        checks = os.path.join(ROOT, "test", "checks")
        fixed_total = 0
        for rule in sorted(os.listdir(checks)):
            folder = os.path.join(checks, rule)
            if not os.path.isdir(folder):
                continue
            for name in sorted(os.listdir(folder)):
                if not (name.startswith("fires") and name.endswith(".py")):
                    continue
                with self.subTest(fixture=rule + "/" + name), Tree({}) as t:
                    with open(os.path.join(folder, name), "rb") as f:
                        original = f.read()
                    with open(t.path(name), "wb") as f:
                        f.write(original)
                    rc, out, err = run("--isolated", "--format", "json", name, cwd=t.dir)
                    before = json.loads(out)["diagnostics"]
                    fixable = [d for d in before if d["fix"]]
                    rc, diff, err = run("--isolated", "--diff", name, cwd=t.dir)
                    self.assertEqual(rc, 1 if fixable else 0, err)
                    golden = os.path.join(folder, name[:-3] + ".diff")
                    if update:
                        if diff:
                            with open(golden, "w", encoding="utf-8", newline="") as f:
                                f.write(diff)
                        elif os.path.exists(golden):
                            os.remove(golden)
                    if diff:
                        with open(golden, encoding="utf-8", newline="") as f:
                            self.assertEqual(diff, f.read())
                    else:
                        self.assertFalse(os.path.exists(golden))
                    names_before = undefined_names(t.path(name))
                    rc, out, err = run("--isolated", "--fix", name, cwd=t.dir)
                    self.assertNotEqual(rc, 2, err)  # parses
                    if names_before is not None:
                        # every name a fix writes is bound (pyflakes' undefined names)
                        self.assertLessEqual(undefined_names(t.path(name)), names_before,
                                             read_bytes(t.path(name)).decode(errors="replace"))
                    rc, out, err = run("--isolated", "--format", "json", name, cwd=t.dir)
                    after = json.loads(out)["diagnostics"]
                    self.assertEqual([d for d in after if d["fix"]], [])
                    left = {}
                    for d in before:
                        if not d["fix"]:
                            left[d["rule"]] = left.get(d["rule"], 0) + 1
                    for d in after:
                        left[d["rule"]] = left.get(d["rule"], 0) - 1
                        self.assertGreaterEqual(left[d["rule"]], 0, d)
                    fixed_total += len(fixable)
        self.assertGreaterEqual(fixed_total, 25)


class Configuration(unittest.TestCase):
    def tree(self, pyproject=PYPROJECT):
        return Tree({"pyproject.toml": pyproject, "src/train.py": BUGGY,
                     "scripts/run.py": BUGGY, "generated/model.py": BUGGY,
                     "src/msg_pb2.py": BUGGY, "src/generated/deep.py": BUGGY,
                     "src/gen/a.py": BUGGY, "gen/b.py": BUGGY})

    def test_settings_that_would_be_guesses_are_errors(self):
        cases = [
            ('[tool.tpf]\nselect = ""\n', "pyproject.toml:2:10: `select` is empty, so no rule would run"),
            ('[tool.tpf]\nselect = []\n', "pyproject.toml:2:10: `select` is empty, so no rule would run"),
            ('[tool.tpf]\nfail-on = "warning"\nfail_on = "never"\n',
             "pyproject.toml:3:1: `fail_on` is `fail-on` again ("),
            ('[tool.tpf.scripts."t.py"]\nbatch-size = 3\nbatch_size = 4\n',
             "pyproject.toml:3:1: `batch_size` is `batch-size` again ("),
        ]
        for text, message in cases:
            with self.subTest(config=text), Tree({"pyproject.toml": text, "t.py": CLEAN}) as t:
                rc, out, err = run("t.py", cwd=t.dir)
                self.assertEqual(rc, 2, out + err)
                self.assertIn(message, err)
        with Tree({"t.py": CLEAN}) as t:
            for args, message in [(["--select", ""], "--select names no rule, so none would run"),
                                  (["--select", " , "], "--select names no rule, so none would run"),
                                  (["--batch-size", "0"], "--batch-size must be a positive integer, not 0"),
                                  (["--world-size", "0"], "--world-size must be a positive integer, not 0"),
                                  (["--seq-len", "-3"], "--seq-len must be a positive integer, not -3")]:
                rc, out, err = run("--isolated", *args, "t.py", cwd=t.dir)
                self.assertEqual(rc, 2, out + err)
                self.assertIn(message, err)

    def test_discovered_by_walking_up(self):
        with self.tree() as t:
            # from a subfolder, naming a file: the pyproject two levels up applies
            rc, out, err = run("--format", "json", "train.py", cwd=t.path("src"))
            self.assertEqual(rc, 1, err)
            self.assertEqual([(d["rule"], d["severity"]) for d in json.loads(out)["diagnostics"]],
                             [("TPF006", "warning"), ("TPF003", "error")])

    def test_each_file_gets_its_nearest_config(self):
        files = {"pyproject.toml": '[tool.tpf]\nselect = ["TPF003"]\n',
                 "a.py": BUGGY,
                 "sub/pyproject.toml": '[tool.tpf]\nselect = ["TPF006"]\nfail_on = "never"\n'
                                       'exclude = ["skip.py"]\n',
                 "sub/b.py": BUGGY, "sub/skip.py": BUGGY,
                 # a pyproject without the table does not stop the walk
                 "sub/deep/pyproject.toml": "[project]\nname = 'x'\n", "sub/deep/c.py": BUGGY}
        with Tree(files) as t:
            rc, out, err = run("--format", "json", ".", cwd=t.dir)
            got = [(d["path"], d["rule"]) for d in json.loads(out)["diagnostics"]]
            self.assertEqual(got, [("./a.py", "TPF003"), ("./sub/b.py", "TPF006"),
                                   ("./sub/deep/c.py", "TPF006")])
            self.assertEqual(json.loads(out)["files"], 3)
            self.assertEqual(rc, 1, err)  # a.py's TPF003 fails under the root config
            # only files under sub/: its fail_on = "never" holds
            rc, out, err = run("--format", "json", "sub", cwd=t.dir)
            self.assertEqual(rc, 0, err)
            self.assertEqual(len(json.loads(out)["diagnostics"]), 2)
            # --config and --isolated apply one configuration to every file
            rc, out, _ = run("--format", "json", "--config", "pyproject.toml", ".", cwd=t.dir)
            self.assertEqual({d["rule"] for d in json.loads(out)["diagnostics"]}, {"TPF003"})
            self.assertEqual(json.loads(out)["files"], 4)
            # a broken nested config: an error naming it, the other files still analyzed
            with open(t.path("sub/pyproject.toml"), "a") as f:
                f.write("bogus = 1\n")
            rc, out, err = run("--format", "json", ".", cwd=t.dir)
            self.assertEqual(rc, 2)
            self.assertRegex(err, r"sub/pyproject\.toml:5:1: .*bogus")
            self.assertEqual([d["path"] for d in json.loads(out)["diagnostics"]], ["./a.py"])

    def test_exclude_and_per_file_ignores(self):
        with self.tree() as t:
            rc, out, err = run("--format", "json", ".", cwd=t.dir)
            doc = json.loads(out)
            # excluded: generated/ at any depth, *_pb2.py, src/gen/ (anchored) but not gen/
            self.assertEqual(doc["files"], 3)
            got = [(d["path"], d["rule"]) for d in doc["diagnostics"]]
            self.assertEqual(got, [("./gen/b.py", "TPF006"), ("./gen/b.py", "TPF003"),
                                   ("./scripts/run.py", "TPF006"), ("./src/train.py", "TPF006"),
                                   ("./src/train.py", "TPF003")])
            # excluded even when named
            rc, out, _ = run("--format", "json", "generated/model.py", cwd=t.dir)
            self.assertEqual(json.loads(out)["files"], 0)

    def test_fail_on_from_config_and_command_line_wins(self):
        body = PYPROJECT.replace('select = ["TPF003", "TPF006"]', 'select = ["TPF006"]')
        with self.tree(body) as t:
            rc, _, _ = run("src/train.py", cwd=t.dir)
            self.assertEqual(rc, 1)  # fail-on = warning from the file
            rc, _, _ = run("--fail-on", "error", "src/train.py", cwd=t.dir)
            self.assertEqual(rc, 0)
            rc, out, _ = run("--select", "TPF003", "--format", "json", "src/train.py", cwd=t.dir)
            self.assertEqual([d["rule"] for d in json.loads(out)["diagnostics"]], ["TPF003"])
            rc, out, _ = run("--ignore", "TPF006", "--format", "json", "src/train.py", cwd=t.dir)
            self.assertEqual(json.loads(out)["diagnostics"], [])

    def test_isolated_and_explicit_config(self):
        with self.tree() as t:
            rc, out, _ = run("--isolated", *SEL, "--format", "json", "generated/model.py",
                             cwd=t.dir)
            self.assertEqual([(d["rule"], d["severity"]) for d in json.loads(out)["diagnostics"]],
                             [("TPF006", "error"), ("TPF003", "error")])
            other = t.path("other.toml")
            with open(other, "w") as f:
                f.write('[tool.tpf]\nselect = ["TPF003"]\n')
            rc, out, _ = run("--config", other, "--format", "json", "generated/model.py",
                             cwd=t.dir)
            self.assertEqual([d["rule"] for d in json.loads(out)["diagnostics"]], ["TPF003"])
            rc, _, err = run("--config", other, "--isolated", "src/train.py", cwd=t.dir)
            self.assertEqual(rc, 2)
            self.assertIn("exclude each other", err)

    def test_pyproject_without_table_is_skipped(self):
        with Tree({"pyproject.toml": PYPROJECT, "inner/pyproject.toml": "[project]\nname='x'\n",
                   "inner/t.py": BUGGY}) as t:
            rc, out, _ = run("--format", "json", "inner/t.py", cwd=t.dir)
            self.assertEqual(json.loads(out)["diagnostics"][0]["severity"], "warning")

    def test_errors_name_key_and_position(self):
        cases = [
            ('[tool.tpf]\nselect = ["TPF003"]\n\nselct = ["TPF003"]\n',
             r"pyproject\.toml:4:1: unknown key `selct` in \[tool\.tpf\]"),
            ('[tool.tpf]\nselect = ["TPF099"]\n', r"pyproject\.toml:2:10: unknown rule 'TPF099' in `select`"),
            ('[tool.tpf]\nignore = "TPF003,TPF777"\n', r"pyproject\.toml:2:10: unknown rule 'TPF777' in `ignore`"),
            ('[tool.tpf]\nselect = [3]\n', r"pyproject\.toml:2:11: `select` must be a list of strings"),
            ('[tool.tpf]\nfail_on = "sometimes"\n', r"pyproject\.toml:2:11: `fail_on` is 'sometimes'"),
            ('[tool.tpf]\n\n[tool.tpf.severity]\nTPF003 = "fatal"\n',
             r"pyproject\.toml:4:10: `severity\.TPF003` is 'fatal' \(expected error, warning or note\)"),
            ('[tool.tpf]\nseverity = { TPF404 = "note" }\n', r"pyproject\.toml:2:14: unknown rule 'TPF404' in `severity`"),
            ('[tool.tpf]\ntarget = "h1000"\n', r"pyproject\.toml:2:10: `target`: unknown target"),
            ('[tool.tpf]\nexclude = 1\n', r"pyproject\.toml:2:11: `exclude` must be a list of strings"),
            ('[tool.tpf]\nper-file-ignores = { "a.py" = ["NOPE"] }\n',
             r"pyproject\.toml:2:\d+: unknown rule 'NOPE' in `per-file-ignores\.a\.py`"),
            ('[tool.tpf\n', r"pyproject\.toml:1:\d+: invalid TOML"),
        ]
        for body, pattern in cases:
            with self.subTest(body=body), Tree({"pyproject.toml": body, "t.py": CLEAN}) as t:
                rc, out, err = run("t.py", cwd=t.dir)
                self.assertEqual(rc, 2, err)
                self.assertRegex(err, r"^tpf-analyze: error: \S*" + pattern)
                self.assertEqual(out, "")

    def test_target_from_config_runs_the_estimate(self):
        with Tree({"pyproject.toml": '[tool.tpf]\ntarget = "h100"\n', "t.py": CLEAN}) as t:
            rc, out, err = run("--format", "json", "t.py", cwd=t.dir)
            self.assertEqual(rc, 0, err)
            self.assertEqual(len(json.loads(out)["estimates"]), 1)
            rc, out, err = run("--isolated", "--format", "json", "t.py", cwd=t.dir)
            self.assertEqual(json.loads(out)["estimates"], [])



class PythonVersion(unittest.TestCase):
    """--python-version, [tool.tpf] target-version and requires-python (issue 25)."""
    NEW = 'def first[T](xs: list[T]) -> T:\n    return xs[0]\nprint(f"{ {"k": 1}["k"] }")\n'

    def test_default_reads_3_13(self):
        with Tree({"a.py": self.NEW}) as t:
            rc, out, err = run("--isolated", "a.py", cwd=t.dir)
            self.assertEqual(rc, 0, err)

    def test_option_gives_that_versions_error_and_a_note(self):
        with Tree({"a.py": self.NEW}) as t:
            rc, out, err = run("--isolated", "--python-version", "3.11", "a.py", cwd=t.dir)
            self.assertEqual(rc, 2)
            self.assertIn("a.py:1:10: SyntaxError: expected '('", err)
            self.assertIn("Python 3.13 accepts this file; it is read as Python 3.11 (--python-version 3.11)", err)
            rc, out, err = run("--isolated", "--python-version", "py312", "a.py", cwd=t.dir)
            self.assertEqual(rc, 0, err)

    def test_bad_version_is_a_usage_error(self):
        for bad in ("2.7", "3.14", "three"):
            rc, out, err = run("--isolated", "--python-version", bad, "x.py")
            self.assertEqual(rc, 2)
            self.assertIn(f"unknown --python-version '{bad}' (expected 3.8 to 3.13", err)

    def test_target_version_then_requires_python(self):
        files = {"pyproject.toml": '[project]\nrequires-python = ">=3.10"\n', "src/a.py": self.NEW,
                 "pinned/pyproject.toml": '[tool.tpf]\ntarget-version = "3.12"\n', "pinned/b.py": self.NEW}
        with Tree(files) as t:
            # the nearest pyproject.toml's requires-python: its lowest version, 3.10
            rc, out, err = run("src/a.py", cwd=t.dir)
            self.assertEqual(rc, 2)
            self.assertIn("src/a.py:1:10: SyntaxError: invalid syntax", err)
            self.assertIn('(requires-python = ">=3.10" in ', err)
            # target-version wins over requires-python, the command line over both
            rc, out, err = run("pinned/b.py", cwd=t.dir)
            self.assertEqual(rc, 0, err)
            rc, out, err = run("--python-version", "3.13", "src/a.py", cwd=t.dir)
            self.assertEqual(rc, 0, err)
        with Tree({"pyproject.toml": '[tool.tpf]\ntarget-version = "2.7"\n', "a.py": "x = 1\n"}) as t:
            rc, out, err = run("a.py", cwd=t.dir)
            self.assertEqual(rc, 2)
            self.assertIn("target-version", err)


class Inputs(unittest.TestCase):
    def paths(self, *args, cwd):
        rc, out, err = run("--isolated", *SEL, "--format", "json", "--fail-on", "never", *args,
                           cwd=cwd)
        self.assertEqual(rc, 0, err)
        doc = json.loads(out)
        return doc["files"], sorted({d["path"] for d in doc["diagnostics"]})

    def test_gitignore_hidden_and_venv_folders(self):
        files = {"a.py": BUGGY, "build_out/x.py": BUGGY, "logs/debug.py": BUGGY,
                 "pkg/keep.py": BUGGY, "pkg/gen_1.py": BUGGY, "pkg/gen_keep.py": BUGGY,
                 "pkg/.gitignore": "gen_*.py\n!gen_keep.py\n",
                 ".gitignore": "# comment\n/build_out/\nlogs\n",
                 ".hidden/h.py": BUGGY, "myenv/pyvenv.cfg": "home = /usr/bin\n",
                 "myenv/lib/site.py": BUGGY, "venv/v.py": BUGGY}
        with Tree(files) as t:
            os.mkdir(t.path(".git"))
            n, got = self.paths(".", cwd=t.dir)
            self.assertEqual(got, ["./a.py", "./pkg/gen_keep.py", "./pkg/keep.py"])
            self.assertEqual(n, 3)
            # from a subfolder: the repository root's .gitignore still applies
            with open(t.path("logs/.gitignore"), "w") as f:
                f.write("\n")
            n, got = self.paths("pkg", cwd=t.dir)
            self.assertEqual(got, ["pkg/gen_keep.py", "pkg/keep.py"])
            n, got = self.paths("logs", cwd=t.dir)
            self.assertEqual(n, 1)  # named explicitly: `logs` is the walk's root
            # a file named explicitly is analyzed even if ignored
            n, got = self.paths("pkg/gen_1.py", cwd=t.dir)
            self.assertEqual(got, ["pkg/gen_1.py"])

    def test_outside_a_repository_only_walked_gitignores_count(self):
        with Tree({"sub/.gitignore": "skip.py\n", "sub/skip.py": BUGGY, "sub/ok.py": BUGGY}) as t:
            with open(t.path(".gitignore"), "w") as f:
                f.write("ok.py\n")  # above the walk, and no .git: not read
            n, got = self.paths("sub", cwd=t.dir)
            self.assertEqual(got, ["sub/ok.py"])

    def test_one_file_named_twice_is_analyzed_once(self):
        with Tree({"a.py": BUGGY, "pkg/b.py": BUGGY}) as t:
            os.link(t.path("pkg/b.py"), t.path("hard.py"))
            os.symlink("a.py", t.path("link.py"))
            n, got = self.paths(".", "./a.py", "a.py", "link.py", cwd=t.dir)
            # the walk finds a.py, pkg/b.py and hard.py (one inode with b.py)
            # and link.py (a.py): each file once, where it first appears
            self.assertEqual((n, got), (2, ["./a.py", "./hard.py"]))

    def test_gitignore_that_is_not_a_file_is_skipped_with_a_note(self):
        with Tree({"a.py": BUGGY, "skip.py": BUGGY}) as t:
            os.mkdir(t.path(".git"))
            os.mkfifo(t.path(".gitignore"))  # reading it would block for ever
            rc, out, err = run("--isolated", *SEL, "--format", "concise", "--fail-on", "never",
                               ".", cwd=t.dir)
            self.assertEqual(rc, 0, err)
            self.assertEqual(err, t.path(".gitignore") + ": note: not a regular file; its patterns are not applied\n")
            self.assertEqual(len(out.splitlines()), 4)  # both files, two findings each

    def test_symlink_loop_names_its_cause(self):
        with Tree({}) as t:
            os.symlink("loop.py", t.path("loop.py"))
            rc, out, err = run("--isolated", "loop.py", "missing.py", cwd=t.dir)
            self.assertEqual(rc, 2)
            self.assertEqual(err.splitlines(), ["loop.py: error: Too many levels of symbolic links",
                                                "missing.py: error: No such file or directory"])

    def test_folder_symlinks_out_of_the_tree_are_not_followed(self):
        with Tree({"tree/a.py": BUGGY, "tree/sub/b.py": BUGGY, "outside/c.py": BUGGY}) as t:
            os.symlink(t.path("outside"), t.path("tree/out"))
            os.symlink("sub", t.path("tree/alias"))  # inside: followed, files counted once
            rc, out, err = run("--isolated", *SEL, "--format", "concise", "tree", cwd=t.dir)
            self.assertEqual(rc, 1, err)
            self.assertEqual(sorted({l.split(":")[0] for l in out.splitlines()}),
                             ["tree/a.py", "tree/alias/b.py"])
            self.assertEqual(err.splitlines(), [
                "tree/out: note: not followed: a symlink to a folder outside %s (%s); "
                "name it on the command line to analyze it" % (t.path("tree"), t.path("outside"))])
            # named, it is the tree
            rc, out, err = run("--isolated", *SEL, "--format", "concise", "tree/out", cwd=t.dir)
            self.assertEqual({l.split(":")[0] for l in out.splitlines()}, {"tree/out/c.py"})

    def test_stdin_with_filename(self):
        rc, out, err = run("--isolated", *SEL, "--format", "concise", "--stdin-filename",
                           "pkg/train.py", "-", stdin=BUGGY)
        self.assertEqual(rc, 1, err)
        self.assertEqual([l.split(": ")[0] for l in out.splitlines()],
                         ["pkg/train.py:9:13", "pkg/train.py:11:5"])
        rc, out, err = run("--isolated", *SEL, "--format", "concise", "-", stdin=CLEAN)
        self.assertEqual((rc, out), (0, ""))

    def test_stdin_filename_finds_config_and_per_file_ignores(self):
        with Tree({"pyproject.toml": '[tool.tpf]\nselect = ["TPF003", "TPF006"]\n'
                                     'per-file-ignores = { "tests/*" = ["TPF006"] }\n'}) as t:
            rc, out, _ = run("--format", "json", "--stdin-filename",
                             t.path("tests/t.py"), "-", stdin=BUGGY, cwd="/")
            self.assertEqual([d["rule"] for d in json.loads(out)["diagnostics"]], ["TPF003"])

    def test_parallel_output_is_deterministic(self):
        files = {}
        for i in range(24):
            files[f"d{i % 3}/f{i:02d}.py"] = BUGGY if i % 2 else CLEAN
        files["d1/broken.py"] = "def f(:\n"
        with Tree(files) as t:
            outs = set()
            for fmt in ("text", "json", "sarif"):
                outs = set()
                for jobs in ("1", "4", "16", "0"):
                    rc, out, err = run("--isolated", *SEL, "--format", fmt, "-j", jobs, ".",
                                       cwd=t.dir)
                    self.assertEqual(rc, 2)  # the syntax error
                    outs.add((out, err))
                self.assertEqual(len(outs), 1, fmt)
            out, err = outs.pop()
            self.assertIn("broken.py:1:", err)
            doc = json.loads(out)
            paths = [r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
                     for r in doc["runs"][0]["results"]]
            self.assertEqual(paths, sorted(paths))
            self.assertEqual(len(paths), 24)
            rc, _, err = run("-j", "-1", ".", cwd=t.dir)
            self.assertEqual(rc, 2)
            self.assertIn("--jobs", err)



class Integrations(unittest.TestCase):
    # Every option the driver accepts; --help must list each one.
    OPTIONS = ["--help", "--version", "--format", "--quiet", "--no-color", "--stdin-filename",
               "--jobs", "--config", "--isolated", "--no-follow-imports", "--python-version", "--select", "--ignore", "--fail-on",
               "--report-unused-suppressions", "--add-noqa", "--statistics", "--fix", "--diff", "--explain", "--list-rules", "--target",
               "--list-targets", "--breakdown", "--fit", "--sort", "--batch-size", "--seq-len", "--dtype",
               "--generate", "--world-size", "--torch-version", "--timeline", "--dump-tokens", "--dump-ast", "--dump-ir", "--dump-facts"]

    def test_help_lists_every_option_with_examples(self):
        rc, out, _ = run("--help")
        self.assertEqual(rc, 0)
        listed = set(re.findall(r"^\s+(?:-\w \[ )?(--[a-z-]+)", out, re.M))
        self.assertEqual(listed, set(self.OPTIONS))
        examples = out[out.index("examples:"):]
        for opt in ("--format sarif", "--format github", "--config", "--isolated", "-j",
                    "--stdin-filename", "--report-unused-suppressions"):
            self.assertIn(opt, examples)
        # and the CLI page documents them
        with open(os.path.join(ROOT, "docs", "cli.md"), encoding="utf-8") as f:
            cli_md = f.read()
        for opt in self.OPTIONS:
            if opt not in ("--help", "--version", "--breakdown", "--batch-size", "--seq-len",
                           "--dtype", "--world-size", "--target", "--list-targets",
                           "--dump-tokens", "--dump-ast", "--dump-ir", "--dump-facts", "--quiet"):
                self.assertIn(opt, cli_md)

    def test_pre_commit_hook(self):
        with open(os.path.join(ROOT, ".pre-commit-hooks.yaml"), encoding="utf-8") as f:
            text = f.read()
        try:
            import yaml
            hooks = yaml.safe_load(text)
            self.assertEqual(hooks[0]["id"], "tpf-analyze")
            self.assertEqual(hooks[0]["entry"], "tpf-analyze")
            self.assertEqual(hooks[0]["types"], ["python"])
        except ImportError:
            self.assertRegex(text, r"(?m)^- id: tpf-analyze$")
            self.assertRegex(text, r"(?m)^  entry: tpf-analyze$")
        # what pre-commit runs: entry + args + the staged file names
        with Tree({"ok.py": CLEAN, "bad.py": BUGGY}) as t:
            rc, out, _ = run("--isolated", "--format", "concise", "ok.py", cwd=t.dir)
            self.assertEqual((rc, out), (0, ""))
            rc, out, _ = run("--isolated", *SEL, "--format", "concise", "ok.py", "bad.py",
                             cwd=t.dir)
            self.assertEqual(rc, 1)

    def test_ci_doc_makefile_gate(self):
        with open(os.path.join(ROOT, "docs", "ci.md"), encoding="utf-8") as f:
            md = f.read()
        block = re.search(r"```make\n(.*?)```", md, re.S).group(1)
        block = block.replace("check: lint-training test\n", "")
        with Tree({"Makefile": block, "src/train.py": CLEAN, "scripts/run.py": CLEAN,
                   "pyproject.toml": '[tool.tpf]\nselect = ["TPF003", "TPF006"]\n'}) as t:
            def make(target):
                p = subprocess.run(["make", "-s", target, "TPF=" + TPF], cwd=t.dir,
                                   capture_output=True, text=True, timeout=60)
                return p.returncode, p.stdout
            self.assertEqual(make("lint-training")[0], 0)
            with open(t.path("src/train.py"), "w") as f:
                f.write(BUGGY)
            rc, out = make("lint-training")
            self.assertNotEqual(rc, 0)
            self.assertIn("src/train.py:11:5: error TPF003", out)


if __name__ == "__main__":
    TPF, ROOT = os.path.abspath(sys.argv[1]), sys.argv[2]
    unittest.main(argv=[sys.argv[0], "-v"])
