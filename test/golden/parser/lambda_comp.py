f = lambda: 0
g = lambda x, *y, z=1, **w: (x, y)
h = lambda a, /, b: a
i = lambda *, k: k
l = [x for x in range(3) if x if not x]
s = {x async for x in y}
d = {k: v for k, v in items() for z in k}
ge = (x for x in y)
call(x for x in y)
call((x for x in y), 1)
n = [[y for y in x] for x in z]
t = x if y else z if w else v
