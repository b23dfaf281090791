# PEP 696 type parameter defaults (Python 3.13).
from collections.abc import Callable


class Loader[T = bytes, *Shape = *tuple[int, ...], **Hooks = [int, str]]:
    pass


def collate[Item: object = dict, Out = list[Item]](items: list[Item]) -> Out:
    return items


type Table[K = str, V: (int, float) = float] = dict[K, V]
type Step[**P = [], R = None] = Callable[P, R]
