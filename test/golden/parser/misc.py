from . import a
from .. import b
from ...pkg.mod import (c as d, e)
from .... import f
import os.path as p, sys
global g1, g2
def outer():
    nonlocal_x = 1
    def inner():
        nonlocal nonlocal_x
x = "a" "b" 'c'
y = b"a" b'b'
z = ("implicit"
     "concatenation")
n = 0x_FF + 0o17 + 0b101 + 1_000 + 1.5e-3 + 1e400 + 3j + 1_0.5j
k = ...
assert x, "msg"
raise E from None
del x
x = not a and b or c
y = a < b <= c != d is not e not in f
z = -a ** -b + ~c // d @ e
w = (a)
v = ((a, b))
u = (a) + b
t = a.b.c(d)[e]
if a: pass
elif b: pass
elif c: pass
else: pass
for x in y: pass
else: pass
while x: break
else: continue
class Empty: pass
