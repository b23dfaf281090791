# PEP 695 type parameters and aliases (Python 3.12+).
from collections.abc import Callable, Sequence

type Batch = list[tuple[int, int]]
type Pair[T] = tuple[T, T]
type Fn[**P, R] = Callable[P, R]


def first[T](items: Sequence[T]) -> T:
    return items[0]


def stack[T: (int, float), *Ts](x: T, *rest: *Ts) -> tuple[T, *Ts]:
    return (x, *rest)


class Buffer[T: object, *Shape, **Hooks]:
    def push(self, item: T) -> None:
        type Local = dict[str, T]
        self.items: Local = {}


async def run[R](fn: Callable[[], R]) -> R:
    return fn()


@staticmethod
def decorated[K, V](mapping: dict[K, V]) -> list[K]:
    return list(mapping)


type = "type is still a name"
type.upper()
match = {"type": type}
