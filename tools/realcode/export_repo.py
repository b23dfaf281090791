#!/usr/bin/env python3
"""Exports the text sources of a fetched mirror (a bare git directory) into a
folder, skipping blobs the mirror does not hold (large files left out by the
fetch) and files over 2 MB. Development tool: never commit what it exports.

usage: export_repo.py GIT_DIR DEST [COMMIT]
"""
import os
import subprocess
import sys

KEEP = (".py", ".toml", ".cfg", ".txt", ".yaml", ".yml", ".json", ".ini", ".md")
MAX = 2 << 20


def main():
    git_dir, dest = sys.argv[1], sys.argv[2]
    commit = sys.argv[3] if len(sys.argv) > 3 else "HEAD"
    tree = subprocess.run(["git", "--git-dir", git_dir, "ls-tree", "-r", "-l", commit],
                          capture_output=True, text=True, check=True).stdout
    n = 0
    for line in tree.splitlines():
        meta, path = line.split("\t", 1)
        mode, kind, sha, size = meta.split()
        if kind != "blob" or mode == "120000" or not path.endswith(KEEP) or not size.isdigit() or int(size) > MAX:
            continue
        p = subprocess.run(["git", "--git-dir", git_dir, "cat-file", "blob", sha], capture_output=True)
        if p.returncode != 0:
            continue
        out = os.path.join(dest, path)
        os.makedirs(os.path.dirname(out), exist_ok=True)
        with open(out, "wb") as f:
            f.write(p.stdout)
        n += 1
    # The project-root marker a clone has (the analyzer looks for .git,
    # pyproject.toml, setup.py or setup.cfg above each script).
    os.makedirs(os.path.join(dest, ".git"), exist_ok=True)
    print(f"{dest}: {n} files")


if __name__ == "__main__":
    main()
