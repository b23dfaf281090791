# Conditional expressions: two blocks joined by a phi.
def sign(x):
    s = -1 if x < 0 else 1
    return s * abs(x)
