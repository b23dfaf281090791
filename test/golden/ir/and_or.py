# and/or short-circuit: as values they join through a phi; as conditions
# they become branches; chained comparisons short-circuit too.
def pick(a, b, c):
    v = a and b or c
    if a and (b or not c):
        v = 0
    ok = 0 < a < 10
    return v, ok
