# Calls with *args/**kwargs and keywords, f-strings, slices, dict/set/list
# displays with unpacking.
def report(fn, args, kw, xs, name):
    r = fn(1, *args, key=2, **kw)
    s = f"{name!r:>10} has {len(xs)} items"
    t = xs[1:-1], xs[::2], xs[..., 0]
    u = {**kw, "a": 1}, [*args, 3], {1, *xs}, (*xs,)
    return r, s, t, u
