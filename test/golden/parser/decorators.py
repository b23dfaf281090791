@dec
def f(): pass

@dec.attr(1, k=2)
@other
async def g(a, /, b=1, *c, d, e=2, **f) -> int:
    return a

@(lambda f: f)
class C(Base, metaclass=Meta, **kw):
    @property
    def p(self): ...
    x: int
    (y): str = "a"
    z.w: list[int]
