#!/usr/bin/env python3
"""Generates one large Python file of a given shape and size, for the
memory-per-file measurements of issue 20 (tools/bench_pipeline.py --memory).

Usage: gen_big_file.py SHAPE MEGABYTES OUT

Shapes (each close to real training code, and each stresses another stage):
  functions  many small top-level functions (module scope, many ir::Functions)
  long       one function with a long body of statements, branches and loops
             (one huge CFG: blocks, phis, SSA values)
  classes    many nn.Module classes with __init__ and forward methods
             (classes, self attributes, method indexes)
The file is written in whole units until it reaches MEGABYTES * 2**20 bytes.
"""
import sys

HEADER = "import torch\nimport torch.nn as nn\nimport torch.nn.functional as F\n\n"

FUNCTION = '''def step{i}(model, x, y, opt):
    out = model(x)
    loss = F.mse_loss(out, y) * {i}
    if loss > 1:
        loss = loss / 2
    return [loss + k for k in range(3)]

'''

LONG_HEAD = "def train(model, loader, opt):\n    total = 0\n"
LONG_STMT = '''    v{i} = (total + {i}) * 2
    if v{i} > {i}:
        total = total - 1
    for k in range(3):
        total = total + k
'''
LONG_TAIL = "    return total\n"

CLASS = '''class Block{i}(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.fc1 = nn.Linear(d, 4 * d)
        self.fc2 = nn.Linear(4 * d, d)

    def forward(self, x):
        h = self.fc2(F.gelu(self.fc1(x)))
        return x + h

'''

SHAPES = {
    "functions": (HEADER, FUNCTION, ""),
    "long": (HEADER + LONG_HEAD, LONG_STMT, LONG_TAIL),
    "classes": (HEADER, CLASS, ""),
}


def generate(shape, size):
    """The text of a file of `shape` with at least `size` bytes."""
    head, unit, tail = SHAPES[shape]
    parts, total, i = [head], len(head) + len(tail), 0
    while total < size:
        u = unit.format(i=i)
        parts.append(u)
        total += len(u)
        i += 1
    parts.append(tail)
    return "".join(parts)


def main(argv):
    if len(argv) != 4 or argv[1] not in SHAPES:
        print(__doc__, file=sys.stderr)
        return 2
    text = generate(argv[1], int(float(argv[2]) * 2**20))
    with open(argv[3], "w") as f:
        f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
