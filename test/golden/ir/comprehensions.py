# Comprehensions are inlined as loops (PEP 709): targets are
# comprehension-local (printed x'), the first iterable is evaluated outside,
# a walrus binds in the enclosing function.
def comps(rows, n):
    squares = [x * x for x in range(n) if x % 2]
    pairs = {(i, j) for i in rows for j in i}
    index = {k: v for k, v in enumerate(rows)}
    total = sum(y for y in rows)
    last = [z := r for r in rows]
    return squares, pairs, index, total, z
