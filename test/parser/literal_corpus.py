#!/usr/bin/env python3
"""Checks the C++ literal decoders against the running python3 (must be 3.11):
writes cases with python3's expected values, runs literal_corpus_check on them,
then reads its JSON output back with json.loads and compares the values.

Usage: literal_corpus.py CHECKER WORKDIR [--random N] [--names] [DIR_OR_FILE...]
  DIR...    every str/bytes token of every .py file (f-strings without braces
            too), expected value from ast.parse of that token alone
  --random  N random bodies from escape fragments, in 4 prefixes, errors included
  --names   every unicodedata name (also lowercased), every NameAliases.txt
            alias and named sequence, and near-miss spellings, with the code
            point "\\N{...}" gives (or -1)
Exit 0 only if every case matches.

Record format of WORKDIR/literals.bin (little-endian u32 lengths):
  b"L" kind(1: s=str S=raw str b=bytes B=raw bytes) body ok(1: 1/0) value-or-message where
  b"N" name i32-codepoint
where each string is u32 length + bytes; str values are UTF-8 with lone
surrogates as 3-byte sequences ('surrogatepass').
"""
import ast
import io
import json
import os
import random
import struct
import subprocess
import sys
import tokenize
import unicodedata
import warnings

warnings.simplefilter("ignore")  # invalid escapes only warn in 3.11
NAME_ALIASES = "/usr/share/unicode/NameAliases.txt"
NAMED_SEQUENCES = "/usr/share/unicode/NamedSequences.txt"


class Writer:
    def __init__(self, path):
        self.f = open(path, "wb")
        self.counts = {}
        self.values = []  # expected value of each decodable literal, in order

    def blob(self, b):
        self.f.write(struct.pack("<I", len(b)) + b)

    def literal(self, kind, body, ok, payload, where):
        self.f.write(b"L" + kind.encode())
        self.blob(body)
        self.f.write(b"1" if ok else b"0")
        self.blob(payload)
        self.blob(where.encode("utf-8", "surrogatepass"))
        self.counts["literal"] = self.counts.get("literal", 0) + 1
        if ok:
            self.values.append(payload if kind in "bB" else payload.decode("utf-8", "surrogatepass"))

    def name(self, name, code):
        self.f.write(b"N")
        self.blob(name.encode("utf-8"))
        self.f.write(struct.pack("<i", code))
        self.counts["name"] = self.counts.get("name", 0) + 1


def value_bytes(v):
    return v if isinstance(v, bytes) else v.encode("utf-8", "surrogatepass")


def literal_error(e):
    """The SyntaxError text of a decode failure, or None for other errors."""
    msg = e.msg if isinstance(e, SyntaxError) else str(e)
    if msg.startswith(("(unicode error)", "(value error)", "bytes can only")):
        return msg
    return None


def split_token(text):
    """(prefix, body) of a string token's text."""
    i = 0
    while text[i] not in "'\"":
        i += 1
    q = 3 if text[i:i + 3] in ("'''", '"""') else 1
    return text[:i].lower(), text[i + q:len(text) - q]


def kind_of(prefix):
    kind = "b" if "b" in prefix else "s"
    return kind.upper() if "r" in prefix else kind


def add_token(w, text, where):
    prefix, body = split_token(text)
    if "f" in prefix and ("{" in body or "}" in body):
        return "fstring"  # literal parts of f-strings are split by the parser
    try:
        node = ast.parse(text, mode="eval").body
    except SyntaxError as e:
        msg = literal_error(e)
        if msg is None:
            return "other"
        w.literal(kind_of(prefix), body.encode("utf-8", "surrogatepass"), False, msg.encode(), where)
        return "ok"
    if isinstance(node, ast.JoinedStr):
        value = "".join(v.value for v in node.values)
    else:
        value = node.value
    w.literal(kind_of(prefix), body.encode("utf-8", "surrogatepass"), True, value_bytes(value), where)
    return "ok"


def walk(paths):
    for p in paths:
        if os.path.isfile(p):
            yield p
            continue
        for root, dirs, names in os.walk(p):
            dirs.sort()
            for n in sorted(names):
                if n.endswith(".py"):
                    yield os.path.join(root, n)


def add_corpus(w, paths):
    files = 0
    seen = {"ok": 0, "fstring": 0, "other": 0}
    for path in walk(paths):
        files += 1
        try:
            with open(path, "rb") as f:
                for tok in tokenize.tokenize(f.readline):
                    if tok.type == tokenize.STRING:
                        seen[add_token(w, tok.string, f"{path}:{tok.start[0]}")] += 1
        except (tokenize.TokenError, SyntaxError, UnicodeDecodeError):
            pass  # tokens before the error were kept
    print(f"corpus: {files} files, {seen['ok']} literals "
          f"(left out: {seen['fstring']} f-strings with fields, {seen['other']} not parsable alone)")


FRAGMENTS = [
    "a", "Z", " ", "{", "}", "\"", "ä", "€", "😀", "\r\n", "\r", "\n", "\t",
    "\\\\", "\\'", "\\\"", "\\a", "\\b", "\\f", "\\n", "\\r", "\\t", "\\v",
    "\\0", "\\7", "\\12", "\\123", "\\400", "\\777", "\\8", "\\9", "\\1234",
    "\\x", "\\x4", "\\x41", "\\xg", "\\xff", "\\xFf", "\\x4ä",
    "\\u", "\\u12", "\\u00e9", "\\ud800", "\\udc00", "\\ud83d\\ude00", "\\uFFFF",
    "\\U", "\\U0001F600", "\\U00110000", "\\UFFFFFFFF", "\\U0010FFFF", "\\U0000d800",
    "\\N", "\\N{", "\\N{}", "\\N{LF}", "\\N{latin small letter a}", "\\N{EM}",
    "\\N{HANGUL SYLLABLE GA}", "\\N{hangul syllable ga}", "\\N{HANGUL SYLLABLE ga}",
    "\\N{CJK UNIFIED IDEOGRAPH-4E00}", "\\N{CJK UNIFIED IDEOGRAPH-4e00}",
    "\\N{CJK UNIFIED IDEOGRAPH-04E00}", "\\N{CJK UNIFIED IDEOGRAPH-31350}",
    "\\N{TAMIL SYLLABLE SAI}", "\\N{ä}", "\\N{SPACE", "\\N{ SPACE}", "\\N{SPACE }",
    "\\N{TANGUT IDEOGRAPH-17000}", "\\N{TANGUT COMPONENT-001}", "\\N{<control-0000>}",
    "\\N{\r\n}", "\\q", "\\ä", "\\😀", "\\\r\n", "\\\n", "\\\r", "\\{", "\\ ",
]


def add_random(w, n, seed=1234):
    rng = random.Random(seed)
    kept = skipped = 0
    for i in range(n):
        body = "".join(rng.choice(FRAGMENTS) for _ in range(rng.randint(1, 6)))
        for prefix in ("", "r", "b", "rb"):
            src = f"{prefix}'''{body}'''"
            try:
                tokens = list(tokenize.tokenize(io.BytesIO(src.encode()).readline))
            except (tokenize.TokenError, SyntaxError):
                skipped += 1
                continue
            strings = [t for t in tokens if t.type == tokenize.STRING]
            if len(strings) != 1 or strings[0].string != src:
                skipped += 1
                continue
            try:
                node = ast.parse(src.encode(), mode="eval").body
            except (SyntaxError, ValueError) as e:
                msg = literal_error(e)
                if msg is None:
                    skipped += 1
                    continue
                w.literal(kind_of(prefix), body.encode(), False, msg.encode(), f"random {i}")
                kept += 1
                continue
            w.literal(kind_of(prefix), body.encode(), True, value_bytes(node.value), f"random {i}")
            kept += 1
    print(f"random: {kept} literals, {skipped} left out (not one token)")


def expected_code(name):
    try:
        v = ast.literal_eval('"\\N{%s}"' % name)
    except SyntaxError:
        return -1
    return ord(v)


def add_names(w):
    for cp in range(0x110000):
        name = unicodedata.name(chr(cp), None)
        if name is None:
            continue
        w.name(name, cp)
        lower = name.lower()
        w.name(lower, expected_code(lower))
    extra = []
    with open(NAME_ALIASES, encoding="utf-8") as f:
        for line in f:
            line = line.split("#", 1)[0].strip()
            if line:
                extra.append(line.split(";")[1])
    with open(NAMED_SEQUENCES, encoding="utf-8") as f:
        for line in f:
            line = line.split("#", 1)[0].strip()
            if line:
                extra.append(line.split(";")[0])
    extra += ["", " ", "SPACE ", " SPACE", "LATIN SMALL LETTER  A", "LATIN_SMALL_LETTER_A",
              "LATIN-SMALL-LETTER-A", "latin small letter a", "Latin Small Letter A",
              "HANGUL SYLLABLE", "HANGUL SYLLABLE ", "HANGUL SYLLABLE GAGG", "HANGUL SYLLABLE GGG",
              "HANGUL SYLLABLE GAX", "HANGUL SYLLABLE IH", "HANGUL SYLLABLE GIH", "Hangul Syllable GA",
              "CJK UNIFIED IDEOGRAPH-", "CJK UNIFIED IDEOGRAPH-4E0", "CJK UNIFIED IDEOGRAPH-004E00",
              "CJK UNIFIED IDEOGRAPH-04E00", "CJK UNIFIED IDEOGRAPH-2B739", "CJK UNIFIED IDEOGRAPH-3134B",
              "CJK UNIFIED IDEOGRAPH-323AF", "CJK UNIFIED IDEOGRAPH-F900", "CJK COMPATIBILITY IDEOGRAPH-f900",
              "TANGUT IDEOGRAPH-17000", "tangut ideograph-17000", "KHITAN SMALL SCRIPT CHARACTER-18B00",
              "NUSHU CHARACTER-1B170", "<control-0000>", "<CONTROL-0000>", "NULL", "null", "nul",
              "BYTE ORDER MARK", "bom", "VS1", "VS256", "vs257", "LATIN SMALL LETTER A\n",
              "x" * 200, "A" * 90]
    for name in extra:
        w.name(name, expected_code(name))


def check_json(values, path):
    """Each line must json.loads (on bytes, as astcompare.py does) to the value."""
    bad = 0
    with open(path, "rb") as f:
        lines = f.read().split(b"\n")[:-1]
    if len(lines) != len(values):
        print(f"JSON: {len(lines)} lines for {len(values)} values")
        return len(values) or 1
    for line, want in zip(lines, values):
        got = json.loads(line)
        if isinstance(want, bytes):
            want = want.decode("latin-1")
        if got != want:
            bad += 1
            if bad <= 20:
                print(f"JSON MISMATCH {line[:120]!r}: want {want[:60]!r}")
    print(f"json: values={len(values)} mismatches={bad}")
    return bad


def main():
    if sys.version_info[:2] != (3, 11):
        print("literal_corpus.py: the expected values must come from python3.11")
        return 77  # meson: skipped
    args = sys.argv[1:]
    if len(args) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    checker, workdir = args.pop(0), args.pop(0)
    os.makedirs(workdir, exist_ok=True)
    data = os.path.join(workdir, "literals.bin")
    w = Writer(data)
    paths = []
    while args:
        a = args.pop(0)
        if a == "--random":
            add_random(w, int(args.pop(0)))
        elif a == "--names":
            add_names(w)
        elif not os.path.exists(a):
            print(f"literal_corpus.py: {a} is missing")
            return 77
        else:
            paths.append(a)
    if paths:
        add_corpus(w, paths)
    w.f.close()
    out = os.path.join(workdir, "values.jsonl")
    rc = subprocess.run([checker, data, out]).returncode
    bad = check_json(w.values, out)
    return 0 if rc == 0 and bad == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
