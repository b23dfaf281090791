# The project's snapshot writer: it takes the whole option namespace, not a
# folder, and writes under one of its attributes (`opts.snap_dir`), once
# through a local path and once through pathlib.
import os
from pathlib import Path

import torch


def write_snapshot(opts, net, step):
    target = os.path.join(opts.snap_dir, "snap_{:05d}.pt".format(step))
    torch.save(net.state_dict(), target)
    if opts.keep_last:
        torch.save(net.state_dict(), Path(opts.snap_dir) / "last.pt")
