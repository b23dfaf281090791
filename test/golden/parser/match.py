match command.split():
    case [action]:
        pass
    case [action, obj, *rest] if obj:
        pass
    case ("go" | "move", direction) as pair:
        pass
    case {"key": value, 1: one, **others}:
        pass
    case Point(x=0, y=0) | Point(1, 2):
        pass
    case -1 | 1.5 | 2 + 3j | -4 - 5j | "s" "t" | b"b" | None | True | False:
        pass
    case a.b.c | (x) | [] | () | [*_] | {}:
        pass
    case [1, 2,] | (1,) | _:
        pass
match x, y:
    case 1, 2:
        pass
match (x):
    case {**rest}:
        pass
match = 1
match(x)
case = 2
