"""`tpf-analyze server` in a real editor: headless neovim's built-in LSP
client (nvim_test.lua) sees TPF001 on a buggy file and sees it go once the
buffer is fixed. Skipped (77) where nvim is not installed.

usage: nvim_test.py TPF_ANALYZE
"""
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from lsp_test import BUGGY  # noqa: E402


def main():
    nvim = shutil.which("nvim")
    if nvim is None:
        print("skip: nvim is not installed (apt-get install neovim)")
        return 77
    tmp = tempfile.mkdtemp(prefix="tpf-nvim-test-")
    try:
        os.makedirs(os.path.join(tmp, ".git"))
        path = os.path.join(tmp, "train.py")
        with open(path, "w") as f:
            f.write(BUGGY)
        env = dict(os.environ, TPF_ANALYZE=os.path.abspath(sys.argv[1]), TPF_FILE=path,
                   XDG_CONFIG_HOME=tmp, XDG_DATA_HOME=tmp, XDG_STATE_HOME=tmp, XDG_CACHE_HOME=tmp)
        script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "nvim_test.lua")
        try:
            p = subprocess.run([nvim, "--headless", "--clean", "-n", "-c", "luafile " + script], cwd=tmp, env=env,
                               stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=120)
        except subprocess.TimeoutExpired:
            print("FAIL: nvim did not finish within 120 s")
            return 1
        print(p.stdout + p.stderr)
        if p.returncode != 0:
            print(f"FAIL: nvim exited {p.returncode}")
            return 1
        print("nvim test: all passed")
        return 0
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
