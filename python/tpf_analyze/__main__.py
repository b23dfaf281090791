"""``python -m tpf_analyze ARGS``: runs the installed tpf-analyze binary
with ARGS; its exit status is the command's."""
import os
import subprocess
import sys

from tpf_analyze import find_tpf_analyze_bin


def main() -> int:
    try:
        binary = find_tpf_analyze_bin()
    except FileNotFoundError as e:
        print(f"tpf-analyze: error: {e}", file=sys.stderr)
        return 2
    if os.name == "nt":  # no exec on Windows: wait for it
        return subprocess.call([binary, *sys.argv[1:]])
    os.execv(binary, [binary, *sys.argv[1:]])
    return 2  # not reached


if __name__ == "__main__":
    sys.exit(main())
