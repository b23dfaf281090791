if (n := len(a)) > 10:
    pass
while chunk := f.read():
    pass
[y := f(x), y**2]
print(*args, sep="", **kwargs)
f(a, *b, c=1, *d, **e)
first, *rest = items
*init, last = items
a, b = b, a
x = y = z = 1
(a, b), [c, d] = e
for i, (j, k) in enumerate(z): pass
x = *a, *b
return_value = yield
