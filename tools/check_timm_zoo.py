#!/usr/bin/env python3
"""Builds every row of memory/timm_models.def with the zoo's own builders
(memory/zoo/timm_models.py) under real torch and compares its parameter
count with the published one (timm's results tables, millions with two
decimals).

Usage: check_timm_zoo.py [SRCDIR]. Exit 0 when every row is within 1%,
77 (skipped, as meson reads it) when torch is not installed, 1 otherwise.
Prints one line per row outside 1% and a summary.
"""
import importlib.util
import os
import re
import sys

ROW = re.compile(r'^TPF_TIMM\("([^"]+)", "([^"]+)", "([^"]*)", (\d+), (\d+), ([\d.]+), "(.*)"\)$')


def rows(path):
    with open(path, encoding='utf-8') as f:
        for line in f:
            m = ROW.match(line.strip())
            if m:
                name, fam, tag, nc, size, count, args = m.groups()
                yield name, fam, int(nc), int(size), float(count), eval('dict(%s)' % args)


def main():
    src = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), '..')
    try:
        import torch  # noqa: F401
    except ImportError:
        print('torch is not installed: skipped')
        return 77
    spec = importlib.util.spec_from_file_location('timm_models', os.path.join(src, 'memory/zoo/timm_models.py'))
    zoo = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(zoo)
    total = ok = 0
    worst = []
    most = (0.0, '')
    # Counting needs no initial values: skip the random init of big weights.
    for cls in (torch.nn.Linear, torch.nn.Conv1d, torch.nn.Conv2d):
        cls.reset_parameters = lambda self: None
    for name, fam, nc, size, count, args in rows(os.path.join(src, 'memory/timm_models.def')):
        total += 1
        m = zoo.create_model(fam, args, num_classes=nc, img_size=size)
        n = sum(p.numel() for p in m.parameters())
        rel = abs(n / 1e6 - count) / count
        if rel <= 0.01:
            ok += 1
        else:
            worst.append((rel, name, n, count))
        most = max(most, (rel, name))
        del m
    for rel, name, n, count in sorted(worst, reverse=True):
        print('%s: built %d, published %.2fM (%.2f%% off)' % (name, n, count, 100 * rel))
    print('%d of %d rows within 1%% of the published parameter count (largest difference %.3f%%, %s)'
          % (ok, total, 100 * most[0], most[1]))
    return 0 if ok == total else 1


if __name__ == '__main__':
    sys.exit(main())
