#!/usr/bin/env python3
"""Builds every row of memory/tables/timm_models.def with the zoo's own builders
(memory/tables/zoo/timm_models.py) under real torch and compares its parameter
count with the published one (timm's results tables, millions with two
decimals).

Usage: check_timm_zoo.py [SRCDIR]. Exit 0 when every row is within 1%,
77 (skipped, as meson reads it) when torch is not installed, 1 otherwise.
Prints one line per row outside 1% and a summary.

check_timm_zoo.py --saved NAME BATCH SIZE [SRCDIR]: what autograd saves in
one forward of the zoo's NAME to a cross-entropy loss on a BATCH x 3 x SIZE
x SIZE input, through tools/measure_memory.py's hooks (activation_bytes:
the batch and the parameters apart), as test/memory/interp_test.cpp pins it.
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


def load(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def saved(src, zoo, name, batch, size):
    import types
    import torch
    import torch.nn.functional as F
    mm = load(os.path.join(src, 'tools/measure_memory.py'), 'measure_memory')
    torch.manual_seed(0)
    row = {r[0]: r for r in rows(os.path.join(src, 'memory/tables/timm_models.def'))}[name]
    model = zoo.create_model(row[1], row[5], num_classes=row[2], img_size=row[3])
    model.train()
    x, y = torch.randn(batch, 3, size, size), torch.randint(0, row[2], (batch,))
    s = types.SimpleNamespace(models={'model': model})
    tracker = mm.ModuleTracker(s.models)
    r = mm.measure_phase(lambda s, b: F.cross_entropy(model(b[0]), b[1]), s, (x, y), s.models, tracker)
    print('%s batch %d size %d: params %d activation_bytes %d dropout_mask_bytes %d'
          % (name, batch, size, sum(p.numel() for p in model.parameters()), r['activation_bytes'],
             r['dropout_mask_bytes']))
    return 0


def main():
    args = sys.argv[1:]
    measure = None
    if args and args[0] == '--saved':
        measure, args = (args[1], int(args[2]), int(args[3])), args[4:]
    src = args[0] if args else os.path.join(os.path.dirname(os.path.abspath(__file__)), '..')
    try:
        import torch  # noqa: F401
    except ImportError:
        # Debian's python3-torch is in the system interpreter's path, which
        # a python3 first on PATH (a virtual environment) may not see.
        if os.path.exists('/usr/bin/python3') and os.environ.get('TPF_TIMM_REEXEC') != '1':
            os.environ['TPF_TIMM_REEXEC'] = '1'
            os.execv('/usr/bin/python3', ['/usr/bin/python3', os.path.abspath(__file__)] + sys.argv[1:])
        print('torch is not installed: skipped')
        return 77
    zoo = load(os.path.join(src, 'memory/tables/zoo/timm_models.py'), 'timm_models')
    if measure:
        return saved(src, zoo, *measure)
    total = ok = 0
    worst = []
    most = (0.0, '')
    # Counting needs no initial values: skip the random init of big weights.
    for cls in (torch.nn.Linear, torch.nn.Conv1d, torch.nn.Conv2d):
        cls.reset_parameters = lambda self: None
    for name, fam, nc, size, count, args in rows(os.path.join(src, 'memory/tables/timm_models.def')):
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
