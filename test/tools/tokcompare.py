#!/usr/bin/env python3
"""Compare `tpf-analyze --dump-tokens` with Python's tokenize module on every .py file.

Usage: tokcompare.py [--tpf BIN] [--limit N] [--jobs N] [-v] DIR_OR_FILE...
Prints the first difference of each mismatching file, then a last line:
  tokcompare: files=N compared=N match=N mismatch=N tpf_errors=N skipped=N
Exit 0 only when every compared file matches.

Files are skipped when tokenize rejects them or yields an ERRORTOKEN, and when
CPython's ast.parse rejects them (tokenize.py accepts things the C tokenizer
does not, such as `0777`). NL, COMMENT and ENCODING tokens are ignored.

Where tokenize.py and the C tokenizer differ, and what is compared instead:
  - INDENT, DEDENT and ENDMARKER have no position in 3.11's C tokenizer; we
    use tokenize's (INDENT covers the indentation, DEDENT is empty at the
    next token, ENDMARKER is empty after the last line).
  - NEWLINE is empty at the line break in the C tokenizer; tokenize's covers
    the break. Only its start and text are compared.
  - At a missing final line break tokenize invents NEWLINE '' and puts the
    DEDENTs and ENDMARKER on the next line; the C tokenizer (and we) put them
    at the end of the last line, so those are mapped before comparing.
  - tokenize columns count characters; ours count UTF-8 bytes (as CPython's
    col_offset), so tokenize's are converted.
  - f-strings are one STRING token in both (3.11), and both find their end
    with the 3.11 rule on 3.11-valid code.
  - A backslash continuation inside the indentation (a line holding only
    blanks and a backslash) joins lines in the C tokenizer before the
    indentation is measured; tokenize.py treats it as code. Such files are
    skipped (there are none in the two corpora).
  - After a whitespace-only last line without a line break tokenize puts
    ENDMARKER at the line start; only the kind is compared there.
"""
import argparse
import ast
import concurrent.futures
import functools
import io
import os
import re
import subprocess
import sys
import tokenize

KEEP = {tokenize.NAME, tokenize.NUMBER, tokenize.STRING, tokenize.OP, tokenize.NEWLINE,
        tokenize.INDENT, tokenize.DEDENT, tokenize.ENDMARKER}
DUMP_LINE = re.compile(r"^(\d+):(\d+)-(\d+):(\d+) (\S+) '(.*)'$")
BACKSLASH_INDENT = re.compile(rb"^[ \t\f]*\\\r?$", re.M)


def unescape(s):
    out, i = [], 0
    while i < len(s):
        if s[i] == "\\" and i + 1 < len(s):
            out.append({"n": "\n", "r": "\r", "\\": "\\"}.get(s[i + 1], s[i + 1]))
            i += 2
        else:
            out.append(s[i])
            i += 1
    return "".join(out)


def reference(path, src):
    """tokenize's tokens as (kind, (l, bytecol), (l, bytecol), text), or None to skip."""
    try:
        ast.parse(src)
    except (SyntaxError, ValueError):
        return None
    try:
        toks = list(tokenize.tokenize(io.BytesIO(src).readline))
    except (tokenize.TokenError, SyntaxError):
        return None
    if any(t.type == tokenize.ERRORTOKEN for t in toks):
        return None
    in_strings = set()
    for t in toks:
        if t.type == tokenize.STRING:
            in_strings.update(range(t.start[0] + 1, t.end[0] + 1))
    for m in BACKSLASH_INDENT.finditer(src):
        if src.count(b"\n", 0, m.start()) + 1 not in in_strings:
            return None
    enc = toks[0].string if toks and toks[0].type == tokenize.ENCODING else "utf-8"
    text = src.decode(enc)
    if text.startswith("\ufeff"):
        text = text[1:]
    lines = text.split("\n")
    lines = [ln + "\n" for ln in lines[:-1]] + [lines[-1]]

    def bytecol(pos):
        line, col = pos
        if 1 <= line <= len(lines):
            return (line, len(lines[line - 1][:col].encode("utf-8", "surrogatepass")))
        return (line, col)

    out = []
    for t in toks:
        if t.type not in KEEP:
            continue
        name = tokenize.tok_name[t.type]
        out.append((name, bytecol(t.start), bytecol(t.end), t.string))
    return out, not text.endswith(("\n", "\r")), len(lines)


def ours(tpf, path):
    r = subprocess.run([tpf, "--dump-tokens", path], capture_output=True, timeout=60)
    if r.returncode != 0:
        return None, r.stderr.decode(errors="replace").strip()[:300]
    toks = []
    for line in r.stdout.decode("utf-8", errors="surrogateescape").splitlines():
        m = DUMP_LINE.match(line)
        if not m:
            return None, f"bad dump line: {line[:100]!r}"
        l1, c1, l2, c2, kind, text = m.groups()
        toks.append((kind, (int(l1), int(c1)), (int(l2), int(c2)), unescape(text)))
    return toks, None


def same(ref, got, no_final_newline, nlines):
    kind, start, end, text = ref
    gkind, gstart, gend, gtext = got
    if kind != gkind:
        return False
    if kind == "NEWLINE":
        if no_final_newline and text == "":
            return gtext == "" and gstart == start
        return gstart == start and gtext == text
    if kind in ("DEDENT", "ENDMARKER") and no_final_newline:
        return gtext == "" and gstart == gend
    return (start, end, text) == (gstart, gend, gtext)


def compare(tpf, path):
    with open(path, "rb") as f:
        src = f.read()
    ref = reference(path, src)
    if ref is None:
        return "skip", None
    ref, no_final_newline, nlines = ref
    got, err = ours(tpf, path)
    if got is None:
        return "error", f"ERROR {path}: {err}"
    for i, (a, b) in enumerate(zip(ref, got)):
        if not same(a, b, no_final_newline, nlines):
            return "mismatch", f"MISMATCH {path}: token {i}: tokenize {a} != ours {b}"
    if len(ref) != len(got):
        extra = ref[len(got)] if len(ref) > len(got) else got[len(ref)]
        return "mismatch", (f"MISMATCH {path}: {len(ref)} tokens != ours {len(got)} "
                            f"(first unpaired: {extra})")
    return "match", None


def files(args):
    for p in args:
        if os.path.isfile(p):
            yield p
            continue
        for root, dirs, names in os.walk(p):
            dirs.sort()
            for n in sorted(names):
                if n.endswith(".py"):
                    yield os.path.join(root, n)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tpf", default=os.environ.get("TPF", "build/tools/tpf-analyze"))
    ap.add_argument("--limit", type=int, default=0)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("-v", "--verbose", action="store_true")
    ap.add_argument("paths", nargs="+")
    a = ap.parse_args()
    paths = list(files(a.paths))
    if a.limit:
        paths = paths[:a.limit]
    counts = {"match": 0, "mismatch": 0, "error": 0, "skip": 0}
    with concurrent.futures.ProcessPoolExecutor(max_workers=a.jobs) as ex:
        results = ex.map(functools.partial(compare, a.tpf), paths, chunksize=8)
        for path, (status, msg) in zip(paths, results):
            counts[status] += 1
            if msg:
                print(msg)
            elif a.verbose and status == "skip":
                print(f"SKIP {path}")
    compared = counts["match"] + counts["mismatch"] + counts["error"]
    print(f"tokcompare: files={len(paths)} compared={compared} match={counts['match']} "
          f"mismatch={counts['mismatch']} tpf_errors={counts['error']} skipped={counts['skip']}")
    return 0 if paths and counts["mismatch"] == 0 and counts["error"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
