# A lambda is its own function; defaults are evaluated where it is created.
def make(k):
    f = lambda x, y=2: x * y + k
    return sorted([3, 1], key=lambda v: -v), f
