# for with else, break and continue: ForIter leaves to the else block when
# the iterator is exhausted; break jumps past it.
def find(items, key):
    for i, item in enumerate(items):
        if item is None:
            continue
        if item == key:
            found = i
            break
    else:
        found = -1
    return found
