# match: each case tests the subject and branches to the next case on
# failure; captures bind locals; guards are conditions; `|` alternatives
# join in one success block.
def handle(cmd):
    match cmd:
        case ["go", direction]:
            r = direction
        case {"x": x, **rest}:
            r = x
        case Point(x=0, y=yy) if yy > 0:
            r = yy
        case 1 | 2 as n:
            r = n
        case None:
            r = 0
        case _:
            r = -1
    return r
