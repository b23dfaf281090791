# Nested functions read enclosing variables with LoadFree and write them
# with StoreFree after `nonlocal`; qualnames follow CPython (outer.<locals>.inner).
def counter():
    count = 0

    def bump(step=1):
        nonlocal count
        count = count + step
        return count

    def peek():
        return count

    return bump, peek
