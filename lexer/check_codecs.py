#!/usr/bin/python3
"""Compares tpf-analyze's reading of PEP 263 coding declarations with CPython's.

Every codec name Python knows (aliases and modules, in upper case, with
hyphens, dots and stray punctuation), over an ASCII body, printable ASCII, a
string of high bytes and one of escapes: does CPython's ast.parse accept the
file, and does `tpf-analyze --dump-ast`? Prints each disagreement and the
count. Known and intended: unicode_escape and raw_unicode_escape files with a
backslash or a high byte are refused with UnsupportedEncoding (CPython
accepts them); ICU's GBK and CP949 accept a few byte pairs Python rejects.

    /usr/bin/python3 lexer/check_codecs.py build-ci/tools/tpf-analyze
"""
import ast
import encodings
import encodings.aliases
import os
import pkgutil
import random
import subprocess
import sys
import tempfile


def main():
    tool = sys.argv[1]
    names = set(encodings.aliases.aliases) | set(encodings.aliases.aliases.values())
    names |= {m.name for m in pkgutil.iter_modules(encodings.__path__)}
    variants = {"lat_in1", "utf.8", "x.y", "..", "ibm.437", "cp.1252", "cp-1252", "mbcs"}
    for n in names:
        variants |= {n, n.upper(), n.replace("_", "-"), n.replace("_", "."), n.replace("_", ""),
                     "-" + n, n + ".", n.replace("_", "--")}
    rng = random.Random(1)
    bodies = [b"x = 1\n", bytes(range(0x20, 0x7F)) + b"\n",
              b"s = '" + bytes(rng.randrange(0x80, 0x100) for _ in range(8)) + b"'\n",
              b"s = '\\u00e9 \\x1b'\n"]
    differ = total = 0
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "t.py")
        for name in sorted(variants):
            for body in bodies:
                src = ("# coding: %s\n" % name).encode() + body
                try:
                    ast.parse(src)
                    cpython = True
                except (SyntaxError, ValueError):
                    cpython = False
                with open(path, "wb") as f:
                    f.write(src)
                r = subprocess.run([tool, "--isolated", "--dump-ast", path], capture_output=True)
                ours = r.returncode == 0
                total += 1
                if cpython != ours:
                    differ += 1
                    print("%r %r: cpython %s, tpf-analyze %s: %s" % (
                        name, body[:24], cpython, ours, r.stderr.decode(errors="replace")[:120]))
    print("%d cases, %d differ" % (total, differ))


if __name__ == "__main__":
    main()
