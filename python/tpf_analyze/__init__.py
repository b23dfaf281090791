"""tpf-analyze: a static analyzer for PyTorch training scripts.

The analyzer is a C++ binary; this package installs it as the
``tpf-analyze`` script of the environment (as Ruff ships its binary).
``find_tpf_analyze_bin()`` says where it is; ``python -m tpf_analyze``
runs it.
"""
import os
import sys
import sysconfig

__all__ = ["find_tpf_analyze_bin"]


def find_tpf_analyze_bin() -> str:
    """The path of the tpf-analyze binary this package installed."""
    exe = "tpf-analyze" + (sysconfig.get_config_var("EXE") or "")
    # The environment's scripts folder (a venv's bin/), then the user
    # scheme's (pip install --user).
    folders = [sysconfig.get_path("scripts")]
    user_scheme = sysconfig.get_preferred_scheme("user") if hasattr(sysconfig, "get_preferred_scheme") \
        else ("nt_user" if os.name == "nt" else "posix_user")
    folders.append(sysconfig.get_path("scripts", user_scheme))
    # The folder of the running interpreter (a venv whose python was
    # invoked by its full path without activating it).
    folders.append(os.path.dirname(sys.executable))
    for folder in folders:
        path = os.path.join(folder, exe)
        if os.path.isfile(path) and os.access(path, os.X_OK):
            return path
    raise FileNotFoundError(f"{exe} not found in {', '.join(folders)} (is the tpf-analyze package installed?)")
