# Assignment targets: unpacking with a star, attribute and subscript stores,
# augmented assignment (BinOp with [=]), del, annotated assignment.
def targets(obj, d, seq):
    a, *b, c = seq
    obj.attr = a
    d["k"] = c
    d["k"] += 1
    obj.count -= 1
    total: int = 0
    total += len(b)
    x: float
    del d["k"], obj.attr
    del a
    return total
