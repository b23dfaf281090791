# while with else, break and continue; `while True` has no exit edge from
# its header: only break leaves it.
def count(n):
    i = 0
    while i < n:
        i = i + 1
        if i == 3:
            continue
        if i == 7:
            break
    else:
        i = -1
    return i


def forever(q):
    while True:
        item = q.get()
        if item is None:
            break
    return item
