"""`tpf-analyze server` spoken to as an editor would (issue 23): initialize,
didOpen of a buggy file (diagnostics with exact ranges), codeAction (the
safe fix, "ignore TPFnnn on this line", fix-all), hover on a model
construction and on `target` in [tool.tpf], a change in an imported module
re-analyzing its importer, didChange to fixed content (no diagnostics),
partial text mid-edit, malformed JSON-RPC, shutdown and exit.

usage: lsp_test.py TPF_ANALYZE
"""
import json
import os
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from lsp_client import Client  # noqa: E402

BUGGY = '''import torch
import torch.nn as nn


class Net(nn.Module):
    def __init__(self, n_in=784, n_out=10):
        super().__init__()
        self.fc = nn.Linear(n_in, n_out)

    def forward(self, x):
        return self.fc(torch.flatten(x, 1))


model = Net()
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
criterion = nn.CrossEntropyLoss()
losses = []
for step in range(100):
    x = torch.randn(64, 784)
    y = torch.randint(0, 10, (64,))
    optimizer.zero_grad()
    loss = criterion(model(x), y)
    loss.backward()
    optimizer.step()
    losses.append(loss)
'''
# A finding after a character outside the BMP: byte column 16, UTF-16 14.
NON_ASCII = BUGGY.replace("    losses.append(loss)", '    _ = "\U0001D53C"; losses.append(loss)')
FIXED = BUGGY.replace("losses.append(loss)", "losses.append(loss.item())")

HELPERS = '''def clear(optimizer):
    optimizer.zero_grad()
'''
USES_HELPERS = '''import torch
import torch.nn as nn

import helpers

model = nn.Linear(10, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(10):
    helpers.clear(optimizer)
    loss = model(torch.randn(4, 10)).sum()
    loss.backward()
    optimizer.step()
'''

PYPROJECT = '''[project]
name = "demo"

[tool.tpf]
target = "h100"
'''

failures = []


def check(cond, what, detail=None):
    if cond:
        print(f"ok: {what}")
    else:
        print(f"FAIL: {what}")
        if detail is not None:
            print(json.dumps(detail, indent=1)[:4000])
        failures.append(what)


def rng(l0, c0, l1, c1):
    return {"start": {"line": l0, "character": c0}, "end": {"line": l1, "character": c1}}


def apply_edits(text, edits):
    """Applies LSP TextEdits (UTF-16 positions; the texts here are ASCII)."""
    lines = text.split("\n")
    starts = [0]
    for l in lines:
        starts.append(starts[-1] + len(l) + 1)

    def off(p):
        return starts[p["line"]] + p["character"]
    for e in sorted(edits, key=lambda e: off(e["range"]["start"]), reverse=True):
        text = text[:off(e["range"]["start"])] + e["newText"] + text[off(e["range"]["end"]):]
    return text


def main():
    tpf = os.path.abspath(sys.argv[1])
    tmp = tempfile.mkdtemp(prefix="tpf-lsp-test-")
    try:
        proj = os.path.join(tmp, "proj")
        os.makedirs(proj)
        for name, text in [("pyproject.toml", PYPROJECT), ("train.py", BUGGY), ("helpers.py", HELPERS),
                           ("uses_helpers.py", USES_HELPERS)]:
            with open(os.path.join(proj, name), "w") as f:
                f.write(text)
        os.makedirs(os.path.join(proj, ".git"))  # the project root
        uri = "file://" + os.path.join(proj, "train.py")
        c = Client([tpf, "server"], cwd=tmp)

        # ---- before initialize: an error, not a crash ----
        r = c.request("textDocument/hover", {"textDocument": {"uri": uri}, "position": {"line": 0, "character": 0}})
        check(r.get("error", {}).get("code") == -32002, "a request before initialize is ServerNotInitialized", r)

        r = c.request("initialize", {"processId": None, "rootUri": "file://" + proj,
                                     "capabilities": {}, "initializationOptions": {"debounceMs": 50},
                                     "workspaceFolders": [{"uri": "file://" + proj, "name": "proj"}]})
        caps = r["result"]["capabilities"]
        check(caps["textDocumentSync"]["change"] == 2 and caps["hoverProvider"] is True
              and caps["positionEncoding"] == "utf-16", "initialize: incremental sync, hover, UTF-16 positions", r)
        check(r["result"]["serverInfo"]["name"] == "tpf-analyze", "initialize: serverInfo", r)
        c.notify("initialized", {})

        # ---- didOpen a buggy file: the diagnostic with its exact range ----
        c.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "python", "version": 1,
                                                           "text": BUGGY}})
        diags = c.diagnostics(uri)
        codes = [d["code"] for d in diags]
        tpf001 = [d for d in diags if d["code"] == "TPF001"]
        check(len(tpf001) == 1 and tpf001[0]["range"] == rng(24, 4, 24, 23),
              "didOpen: TPF001 on `losses.append(loss)`, line 25 columns 5-23 (0-based 24:4-24:23)", diags)
        check(tpf001 and tpf001[0]["severity"] == 2 and tpf001[0]["source"] == "tpf-analyze"
              and tpf001[0]["message"].startswith("`losses.append(loss)` stores `loss` with its autograd graph"),
              "didOpen: severity, source and message", tpf001)
        check(codes == ["TPF001"], "didOpen: no other finding", codes)

        # ---- positions count UTF-16 code units by default ----
        euri = "file://" + os.path.join(proj, "enc.py")
        c.notify("textDocument/didOpen", {"textDocument": {"uri": euri, "languageId": "python", "version": 1,
                                                           "text": NON_ASCII}})
        d = [x for x in c.diagnostics(euri) if x["code"] == "TPF001"]
        check(len(d) == 1 and d[0]["range"] == rng(24, 14, 24, 33),
              "UTF-16: `𝔼` (4 bytes, 2 code units) before the finding: it starts at character 14", d)

        # ---- incremental sync: ranges in UTF-16 code units, applied in order ----
        iuri = "file://" + os.path.join(proj, "inc.py")

        def change(version, changes):
            c.notify("textDocument/didChange", {"textDocument": {"uri": iuri, "version": version},
                                                "contentChanges": changes})

        def findings():
            return [(x["code"], x["range"]) for x in c.diagnostics(iuri)]
        c.notify("textDocument/didOpen", {"textDocument": {"uri": iuri, "languageId": "python", "version": 1,
                                                           "text": BUGGY}})
        check(findings() == [("TPF001", rng(24, 4, 24, 23))], "incremental: opened with TPF001 on line 25")
        change(2, [{"range": rng(0, 0, 0, 0), "text": "# added\n"}])
        d = findings()
        check(d == [("TPF001", rng(25, 4, 25, 23))], "incremental: a line inserted above moves the finding down", d)
        # Two changes: the second's range is in the text the first left.
        change(3, [{"range": rng(0, 0, 1, 0), "text": ""}, {"range": rng(24, 18, 24, 22), "text": "loss.item()"}])
        d = findings()
        check(d == [], "incremental: the line removed, then `loss` -> `loss.item()`: TPF001 is gone", d)
        change(4, [{"text": NON_ASCII}])  # no range: the whole text
        d = findings()
        check(d == [("TPF001", rng(24, 14, 24, 33))], "incremental: a change without a range replaces the text", d)
        # `𝔼` is 2 UTF-16 code units: `loss` is characters 28-32 (bytes 30-34).
        change(5, [{"range": rng(24, 28, 24, 32), "text": "loss.item()"}])
        d = findings()
        check(d == [], "incremental: a UTF-16 range after a character outside the BMP", d)
        # A character past the line's end is its end: appended to line 25.
        change(6, [{"range": rng(24, 500, 24, 600), "text": "; losses.append(loss)"}])
        d = findings()
        check(d == [("TPF001", rng(24, 42, 24, 61))], "incremental: a range past the line's end appends to it", d)
        # A line past the end is the end of the document.
        change(7, [{"range": rng(999, 0, 999, 7), "text": "x = (\n"}])
        d = findings()
        check([(k, r["start"]["line"]) for k, r in d] == [("SyntaxError", 25)],
              "incremental: a range past the last line appends to the document", d)
        change(8, [{"range": rng(26, 0, 25, 0), "text": ""}])  # reversed: read as 25:0-26:0
        d = findings()
        check(d == [("TPF001", rng(24, 42, 24, 61))], "incremental: a reversed range is read in order", d)
        # A malformed change: the whole notification is dropped, the text kept.
        change(9, [{"range": rng(0, 0, 0, 0), "text": "junk "}, {"range": {"start": {"line": 0}}, "text": "x"}])
        r = c.request("textDocument/hover", {"textDocument": {"uri": iuri}, "position": {"line": 0, "character": 0}})
        check("result" in r, "incremental: the server answers after a malformed change", r)
        change(10, [{"range": rng(24, 40, 24, 61), "text": ""}])
        d = findings()
        check(d == [], "incremental: after the dropped change the text is as it was (`junk` never went in)", d)
        c.notify("textDocument/didClose", {"textDocument": {"uri": iuri}})
        c.diagnostics(iuri)

        # ---- "ignore on this line" where --add-noqa would write it ----
        with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "golden", "adopt",
                               "layouts.py"), encoding="utf-8") as f:
            layouts = f.read()
        luri = "file://" + os.path.join(proj, "layouts.py")
        c.notify("textDocument/didOpen", {"textDocument": {"uri": luri, "languageId": "python", "version": 1,
                                                           "text": layouts}})
        ld = c.diagnostics(luri)
        lines = layouts.split("\n")

        def ignore_edits(code, line0):
            found = [x for x in ld if x["code"] == code and x["range"]["start"]["line"] == line0]
            r = c.request("textDocument/codeAction", {"textDocument": {"uri": luri}, "range": found[0]["range"],
                                                      "context": {"diagnostics": found}})
            return [a["edit"]["changes"][luri] for a in r["result"] if a["title"] == f"Ignore {code} on this line"]
        # `p.item()` on line 25, inside the f-string: the comment goes after its closing `""")` (line 26).
        e = ignore_edits("TPF009", 24)
        check(e == [[{"range": rng(25, 4, 25, 4), "newText": "  # tpf: ignore[TPF009]"}]],
              "ignore inside a multi-line f-string: on the line that closes it", e)
        # `total = total + \`: on the continued line, after its trailing tab.
        e = ignore_edits("TPF001", 21)
        check(e == [[{"range": rng(22, 16, 22, 17), "newText": "  # tpf: ignore[TPF001]"}]],
              "ignore on a backslash-continued line: at the end of the next line, its trailing tab replaced", e)
        # The softmax line names TPF009 already: TPF006 joins its list, sorted.
        at = lines[17].index("TPF009")
        e = ignore_edits("TPF006", 17)
        check(e == [[{"range": rng(17, at, 17, at + 6), "newText": "TPF006, TPF009"}]],
              "ignore where a suppression is: the code merged into its list", e)
        c.notify("textDocument/didClose", {"textDocument": {"uri": luri}})
        c.diagnostics(luri)

        # ---- codeAction on the finding: its fix, the ignore comment, fix-all ----
        r = c.request("textDocument/codeAction", {"textDocument": {"uri": uri}, "range": rng(24, 6, 24, 6),
                                                  "context": {"diagnostics": tpf001}})
        actions = r["result"]
        titles = [a["title"] for a in actions]
        fix = [a for a in actions if a["title"].startswith("Fix TPF001")]
        check(len(fix) == 1 and fix[0]["kind"] == "quickfix", "codeAction: the TPF001 safe fix", actions)
        if fix:
            fixed = apply_edits(BUGGY, fix[0]["edit"]["changes"][uri])
            check("losses.append(loss.detach())" in fixed, "the fix stores `loss.detach()`",
                  fix[0]["edit"])
        ign = [a for a in actions if a["title"] == "Ignore TPF001 on this line"]
        check(len(ign) == 1, "codeAction: ignore TPF001 on this line", titles)
        if ign:
            edits = ign[0]["edit"]["changes"][uri]
            check(edits == [{"range": rng(24, 23, 24, 23), "newText": "  # tpf: ignore[TPF001]"}],
                  "the ignore edit appends `  # tpf: ignore[TPF001]` at the end of line 25", edits)
        fix_all = [a for a in actions if a["kind"] == "source.fixAll.tpf-analyze"]
        check(len(fix_all) == 1, "codeAction: apply every safe fix", titles)
        r = c.request("textDocument/codeAction", {"textDocument": {"uri": uri}, "range": rng(2, 0, 2, 0),
                                                  "context": {"diagnostics": []}})
        check(r["result"] == [], "codeAction on a line without findings: none", r)

        # ---- hover: the VRAM table on the model's construction ----
        r = c.request("textDocument/hover", {"textDocument": {"uri": uri}, "position": {"line": 13, "character": 3}})
        h = r.get("result") or {}
        value = h.get("contents", {}).get("value", "")
        check("peak VRAM of `model`" in value and "H100" in value and "```text" in value,
              "hover on `model = Net()`: the estimate for the [tool.tpf] target", r)
        check(h.get("range") == rng(13, 0, 13, 13), "hover range: the construction's line", h.get("range"))
        r = c.request("textDocument/hover", {"textDocument": {"uri": uri}, "position": {"line": 1, "character": 3}})
        check(r.get("result") is None, "hover elsewhere: nothing", r)

        # ---- hover on `target` in pyproject.toml [tool.tpf] ----
        puri = "file://" + os.path.join(proj, "pyproject.toml")
        c.notify("textDocument/didOpen", {"textDocument": {"uri": puri, "languageId": "toml", "version": 1,
                                                           "text": PYPROJECT}})
        r = c.request("textDocument/hover", {"textDocument": {"uri": puri}, "position": {"line": 4, "character": 2}})
        value = ((r.get("result") or {}).get("contents") or {}).get("value", "")
        check('`target = "h100"`' in value and "`train.py`" in value and "```text" in value,
              "hover on [tool.tpf] target: the open script's estimate", r)
        r = c.request("textDocument/hover", {"textDocument": {"uri": puri}, "position": {"line": 1, "character": 2}})
        check(r.get("result") is None, "hover on [project] name: nothing", r)

        # ---- an imported module changes: its open importer is analyzed again ----
        huri = "file://" + os.path.join(proj, "helpers.py")
        uuri = "file://" + os.path.join(proj, "uses_helpers.py")
        c.notify("textDocument/didOpen", {"textDocument": {"uri": uuri, "languageId": "python", "version": 1,
                                                           "text": USES_HELPERS}})
        d = c.diagnostics(uuri)
        check([x["code"] for x in d if x["code"] == "TPF003"] == [],
              "uses_helpers.py: helpers.clear() zeroes the gradients (no TPF003)", d)
        c.notify("textDocument/didOpen", {"textDocument": {"uri": huri, "languageId": "python", "version": 1,
                                                           "text": HELPERS}})
        c.diagnostics(huri)
        d = c.diagnostics(uuri)  # opening the imported file analyzes its importer again
        check([x["code"] for x in d if x["code"] == "TPF003"] == [], "opening helpers.py re-analyzes its importer", d)
        c.notify("textDocument/didChange", {"textDocument": {"uri": huri, "version": 2},
                                            "contentChanges": [{"text": "def clear(optimizer):\n    pass\n"}]})
        d = c.diagnostics(uuri)  # unsaved: the server reads the open buffer
        check([x["code"] for x in d if x["code"] == "TPF003"] == ["TPF003"],
              "helpers.clear() edited to do nothing: the importer gets TPF003 without being touched", d)

        # ---- partial text mid-edit: a syntax error, then the fixed text ----
        c.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": 2},
                                            "contentChanges": [{"text": BUGGY[:BUGGY.index("(n_in, n_out)") + 6]}]})
        d = c.diagnostics(uri)
        check(len(d) == 1 and d[0]["code"] == "SyntaxError", "a half-typed file: one SyntaxError diagnostic", d)
        # Every prefix of the file, as typed: each request is answered (a
        # code action analyzes the text at once, a hover estimates it).
        answered = 0
        prefixes = list(range(0, len(BUGGY), 11)) + [len(BUGGY)]
        for n, cut in enumerate(prefixes):
            c.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": 100 + n},
                                                "contentChanges": [{"text": BUGGY[:cut]}]})
            a1 = c.request("textDocument/codeAction", {"textDocument": {"uri": uri}, "range": rng(0, 0, 30, 0),
                                                       "context": {"diagnostics": []}})
            a2 = c.request("textDocument/hover", {"textDocument": {"uri": uri},
                                                  "position": {"line": 13, "character": 0}})
            answered += "result" in a1 and "result" in a2
        check(answered == len(prefixes), f"all {len(prefixes)} prefixes of the file answered", answered)
        # Debounced: three quick changes give one analysis, of the last text.
        for k in range(3):
            c.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": 3 + k},
                                                "contentChanges": [{"text": FIXED if k == 2 else BUGGY}]})
        d = c.diagnostics(uri)
        check([x for x in d if x["code"] == "TPF001"] == [], "didChange to the fixed text: TPF001 is gone", d)
        c.seen.clear()
        r = c.request("textDocument/codeAction", {"textDocument": {"uri": uri}, "range": rng(24, 6, 24, 6),
                                                  "context": {"diagnostics": []}})
        check(r["result"] == [], "no code action once it is fixed", r)
        republished = [m for m in c.seen if m.get("method") == "textDocument/publishDiagnostics"
                       and m["params"]["uri"] == uri]
        check(republished == [], "the three quick changes were analyzed once", republished)

        # ---- malformed JSON-RPC: errors, never a crash ----
        c.send_raw(b"Content-Length: 9\r\n\r\n{not json")
        r = c.wait(lambda m: "error" in m and m.get("id") is None, 30, "parse error")
        check(r["error"]["code"] == -32700, "a body that is not JSON: ParseError", r)
        c.send_raw(b"Content-Length: 2\r\n\r\n[]")
        r = c.wait(lambda m: "error" in m and m.get("id") is None, 30, "invalid request")
        check(r["error"]["code"] == -32600, "a JSON array: InvalidRequest", r)
        c.send_raw(b"Content-Lenght: 2\r\n\r\n")
        r = c.wait(lambda m: "error" in m and m.get("id") is None, 30, "bad header")
        check(r["error"]["code"] == -32700, "a header without Content-Length: ParseError", r)
        r = c.request("textDocument/hover", {"textDocument": {"uri": uri}, "position": {"line": "x"}})
        check(r.get("error", {}).get("code") == -32602, "hover with a bad position: InvalidParams", r)
        r = c.request("textDocument/hover", {"textDocument": {"uri": "file:///nope.py"},
                                             "position": {"line": 0, "character": 0}})
        check("error" in r, "hover on a document never opened: an error", r)
        r = c.request("no/such/method", {})
        check(r.get("error", {}).get("code") == -32601, "an unknown method: MethodNotFound", r)
        c.notify("textDocument/didChange", {"textDocument": {"uri": uri}})  # no contentChanges
        c.notify("textDocument/didOpen", {"textDocument": {"uri": 5}})
        r = c.request("textDocument/hover", {"textDocument": {"uri": uri}, "position": {"line": 99999, "character": -4}})
        check("result" in r, "hover past the end of the file: an answer", r)

        # ---- didClose clears the file's diagnostics ----
        c.notify("textDocument/didClose", {"textDocument": {"uri": uuri}})
        check(c.diagnostics(uuri) == [], "didClose: empty diagnostics for the file")

        # ---- shutdown and exit ----
        r = c.request("shutdown", None)
        check("result" in r and r["result"] is None, "shutdown: null result", r)
        r = c.request("textDocument/hover", {"textDocument": {"uri": uri}, "position": {"line": 0, "character": 0}})
        check(r.get("error", {}).get("code") == -32600, "a request after shutdown: InvalidRequest", r)
        c.notify("exit", None)
        rc = c.proc.wait(30)
        check(rc == 0, "exit after shutdown: status 0", rc)

        # ---- exit without shutdown: status 1; stdin closed: status 1 ----
        c = Client([tpf, "server"], cwd=tmp)
        r = c.request("initialize", {"processId": None,
                                     "capabilities": {"general": {"positionEncodings": ["utf-16", "utf-8"]}}})
        check(r["result"]["capabilities"]["positionEncoding"] == "utf-8", "a client offering utf-8 gets it", r)
        c.notify("textDocument/didOpen", {"textDocument": {"uri": euri, "languageId": "python", "version": 1,
                                                           "text": NON_ASCII}})
        d = [x for x in c.diagnostics(euri) if x["code"] == "TPF001"]
        check(len(d) == 1 and d[0]["range"] == rng(24, 16, 24, 35), "UTF-8: the finding starts at byte 16", d)
        # Byte 11 is inside `𝔼` (bytes 9-12): the insertion goes before it,
        # never splitting the character.
        c.notify("textDocument/didChange", {"textDocument": {"uri": euri, "version": 2},
                                            "contentChanges": [{"range": rng(24, 11, 24, 11), "text": "ab"}]})
        d = [(x["code"], x["range"]) for x in c.diagnostics(euri)]
        check(d == [("TPF001", rng(24, 18, 24, 37))], "UTF-8 incremental: a byte inside a character means before it", d)
        c.notify("textDocument/didChange", {"textDocument": {"uri": euri, "version": 3},
                                            "contentChanges": [{"range": rng(24, 32, 24, 36), "text": "loss.item()"}]})
        d = c.diagnostics(euri)
        check(d == [], "UTF-8 incremental: a range in bytes (`loss` at bytes 32-36)", d)
        c.notify("exit", None)
        check(c.proc.wait(30) == 1, "exit without shutdown: status 1")
        c = Client([tpf, "server"], cwd=tmp)
        check(c.close() == 1, "stdin closed without shutdown: status 1")
        c = Client([tpf, "server", "train.py"], cwd=tmp)
        check(c.close() == 2, "`tpf-analyze server PATH`: usage error, status 2")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if failures:
        print(f"{len(failures)} failed")
        return 1
    print("lsp test: all passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
