# raise and assert end their blocks; assert branches to a Raise [assert].
def check(x):
    assert x > 0, "positive"
    if x > 100:
        raise ValueError("big") from None
    return x
