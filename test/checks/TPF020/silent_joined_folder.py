# TPF020 stays silent: the folder is written out in the script
# (`os.path.join("runs", ...)`, like f"runs/{name}"); the option only
# names a file the script's own runs saved there.
import argparse
import os

import torch

if __name__ == "__main__":
    p = argparse.ArgumentParser()
    p.add_argument("--resume", default="last.pt")
    a = p.parse_args()
    net = torch.nn.Linear(2, 2)
    net.load_state_dict(torch.load(os.path.join("runs", a.resume)))
    torch.save(net.state_dict(), os.path.join("runs", "last.pt"))
