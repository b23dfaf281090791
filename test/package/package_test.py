"""The Python package as a user meets it (issue 23): a fresh venv, `pip
install .` of this repository with Debian's meson-python (offline: no
index, no build isolation), then `tpf-analyze --version`, `python -m
tpf_analyze examples/bad_train.py`, and pre-commit running the
`language: python` hook of .pre-commit-hooks.yaml on a temporary git
repository.

usage: package_test.py TPF_ANALYZE SOURCE_ROOT VERSION
TPF_ANALYZE is the build tree's binary: the installed one must report the
same findings. TPF_PACKAGE_JOBS=N limits each wheel build to N compile jobs. Exits 77 (skipped) when python3-venv, meson-python or
pre-commit is missing (`make deps` installs them).
"""
import os
import shutil
import subprocess
import sys
import tempfile

SKIP = 77


def run(cmd, cwd=None, env=None, check=True):
    p = subprocess.run(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True)
    if check and p.returncode != 0:
        print(p.stdout)
        raise SystemExit(f"FAIL: {' '.join(map(str, cmd))} exited {p.returncode}")
    return p


def expect(cond, what, output=""):
    if not cond:
        if output:
            print(output)
        raise SystemExit(f"FAIL: {what}")
    print(f"ok: {what}")


def copy_tree(src, dst):
    """The repository's files as a fresh clone has them (tracked, plus
    untracked ones git does not ignore), never the build folders."""
    try:
        out = subprocess.run(["git", "ls-files", "-co", "--exclude-standard", "-z"], cwd=src,
                             stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, check=True).stdout
        files = [f for f in out.decode().split("\0") if f]
    except (OSError, subprocess.CalledProcessError):
        files = []
        for base, dirs, names in os.walk(src):
            dirs[:] = [d for d in dirs if not d.startswith(("build", ".")) and d != "__pycache__"]
            files += [os.path.relpath(os.path.join(base, n), src) for n in names]
    for f in files:
        s = os.path.join(src, f)
        if not os.path.isfile(s):  # deleted in the work tree
            continue
        d = os.path.join(dst, f)
        os.makedirs(os.path.dirname(d), exist_ok=True)
        shutil.copy2(s, d)


def git_commit(repo, env):
    run(["git", "init", "-q", repo], env=env)
    run(["git", "add", "-A"], cwd=repo, env=env)
    run(["git", "commit", "-q", "-m", "snapshot"], cwd=repo, env=env)
    return run(["git", "rev-parse", "HEAD"], cwd=repo, env=env).stdout.strip()


def main():
    tpf, root, version = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2]), sys.argv[3]
    # The Python that has Debian's meson-python: this one, or the system's
    # (meson may run the tests with a pyenv python that lacks it).
    python = None
    for candidate in (sys.executable, "/usr/bin/python3"):
        if os.path.exists(candidate) and run([candidate, "-c", "import venv, ensurepip, mesonpy"],
                                             check=False).returncode == 0:
            python = candidate
            break
    if python is None:
        print("skip: no python3 with venv, ensurepip and mesonpy (make deps installs "
              "python3-venv and python3-mesonpy)")
        return SKIP
    if shutil.which("pre-commit") is None:
        print("skip: pre-commit missing (make deps installs it)")
        return SKIP

    # 0. The repository's own pyproject.toml (the package's) must not change
    # how its files are analyzed: no [tool.tpf], no requires-python, so a
    # 3.12 file still parses and every rule still runs.
    for args in (["test/golden/ir/type_params.py"], ["--format", "concise", "examples/bad_train.py"]):
        plain = run([tpf, *args], cwd=root, check=False)
        isolated = run([tpf, "--isolated", *args], cwd=root, check=False)
        expect(plain.returncode in (0, 1) and (plain.stdout, plain.returncode) == (isolated.stdout, isolated.returncode),
               f"tpf-analyze {' '.join(args)}: the same with and without --isolated", plain.stdout + isolated.stdout)

    tmp = tempfile.mkdtemp(prefix="tpf-package-test-")
    try:
        env = dict(os.environ)
        # Nothing may come from a package index: none is reachable.
        env.update(PIP_NO_INDEX="1", PIP_DISABLE_PIP_VERSION_CHECK="1",
                   GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@example.invalid",
                   GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@example.invalid",
                   GIT_CONFIG_GLOBAL=os.devnull, GIT_CONFIG_NOSYSTEM="1", HOME=tmp)
        env.pop("VIRTUAL_ENV", None)
        # TPF_PACKAGE_JOBS=N limits the two wheel builds to N compile jobs
        # (meson-python's compile-args), for a shared machine.
        if os.environ.get("TPF_PACKAGE_JOBS", "").isdigit():
            env["PIP_CONFIG_SETTINGS"] = f"compile-args=-j{os.environ['TPF_PACKAGE_JOBS']}"
        src = os.path.join(tmp, "tpf-analyze")
        copy_tree(root, src)

        # 1. pip install . into a fresh venv.
        venv = os.path.join(tmp, "venv")
        run([python, "-m", "venv", "--system-site-packages", venv], env=env)
        py = os.path.join(venv, "bin", "python")
        run([py, "-m", "pip", "install", "--no-build-isolation", "."], cwd=src, env=env)
        exe = os.path.join(venv, "bin", "tpf-analyze")
        expect(os.access(exe, os.X_OK), "pip install . puts the tpf-analyze binary in the venv's bin/")
        p = run([exe, "--version"], env=env)
        expect(p.stdout.startswith(f"tpf-analyze {version} ("), f"tpf-analyze --version says {version}",
               p.stdout)
        where = run([py, "-c", "import tpf_analyze, sys; print(tpf_analyze.__file__); "
                     "print(tpf_analyze.find_tpf_analyze_bin())"], cwd=tmp, env=env).stdout.split()
        expect(where[0].startswith(venv + os.sep), "the tpf_analyze package lies in the venv", where[0])
        expect(where[1] == exe, "find_tpf_analyze_bin() finds the venv's binary", where[1])
        pip_show = run([py, "-m", "pip", "show", "-f", "tpf-analyze"], env=env).stdout
        expect(f"Version: {version}" in pip_show, "pip show gives the meson project's version", pip_show)

        # 2. python -m tpf_analyze: the exit status and the findings of the
        # build tree's binary, byte for byte.
        args = ["--format", "concise", "examples/bad_train.py"]
        got = run([py, "-m", "tpf_analyze", *args], cwd=src, env=env, check=False)
        want = run([tpf, *args], cwd=src, env=env, check=False)
        expect(got.returncode == 1, "python -m tpf_analyze examples/bad_train.py exits 1", got.stdout)
        expect("examples/bad_train.py:145:13: warning TPF001" in got.stdout,
               "it reports TPF001 at examples/bad_train.py:145:13", got.stdout)
        expect(got.stdout == want.stdout and got.returncode == want.returncode,
               "the installed binary reports what the build tree's does", got.stdout + want.stdout)
        p = run([py, "-m", "tpf_analyze", "--version"], cwd=tmp, env=env)
        expect(p.stdout.startswith(f"tpf-analyze {version} "), "python -m tpf_analyze --version", p.stdout)
        p = run([py, "-m", "tpf_analyze", "--no-such-option"], cwd=tmp, env=env, check=False)
        expect(p.returncode == 2, "a usage error through python -m exits 2", p.stdout)

        # 3. pre-commit with the language: python hook, from this repository
        # as a local path repo (pre-commit clones it with git, offline).
        # pre-commit builds its own virtualenv for the hook: it must see
        # Debian's meson-python (system site packages) and build without
        # isolation, or pip would fetch meson-python from an index.
        rev = git_commit(src, env)
        user = os.path.join(tmp, "user-repo")
        os.makedirs(user)
        shutil.copy(os.path.join(src, "examples", "bad_train.py"), os.path.join(user, "train.py"))
        with open(os.path.join(user, ".pre-commit-config.yaml"), "w") as f:
            f.write(f"repos:\n- repo: {src}\n  rev: {rev}\n  hooks:\n  - id: tpf-analyze-python\n")
        git_commit(user, env)
        pc_env = dict(env, PRE_COMMIT_HOME=os.path.join(tmp, "pre-commit-home"),
                      VIRTUALENV_SYSTEM_SITE_PACKAGES="1", PIP_NO_BUILD_ISOLATION="0")
        p = run(["pre-commit", "run", "--all-files", "--color", "never"], cwd=user, env=pc_env, check=False)
        expect(p.returncode == 1, "pre-commit run fails on a buggy file", p.stdout)
        expect("train.py:145:13: warning TPF001" in p.stdout and "Failed" in p.stdout,
               "the hook reports TPF001 at train.py:145:13", p.stdout)
        hook_bin = run(["find", pc_env["PRE_COMMIT_HOME"], "-path", "*/bin/tpf-analyze"], env=env).stdout.split()
        expect(len(hook_bin) == 1, "the hook runs a tpf-analyze pre-commit built in its own env", "\n".join(hook_bin))
        shutil.copy(os.path.join(src, "examples", "good_train.py"), os.path.join(user, "train.py"))
        p = run(["pre-commit", "run", "--all-files", "--color", "never"], cwd=user, env=pc_env, check=False)
        expect(p.returncode == 0 and "Passed" in p.stdout, "pre-commit run passes once the file is fixed", p.stdout)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print("package test: all passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
