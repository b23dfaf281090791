# if / elif / else: the elif is an If nested in orelse; x joins in a phi.
def classify(n):
    if n < 0:
        x = "neg"
    elif n == 0:
        x = "zero"
    else:
        x = "pos"
    return x


def no_else(flag):
    y = 1
    if flag:
        y = 2
    return y
