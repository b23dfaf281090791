# PEP 695 / 696: type parameters are an annotation scope around the def or
# class (the body reaches them as free names), and a `type` alias's value is
# evaluated lazily: the statement itself runs nothing of it.
import torch

type Batch[T = torch.Tensor] = list[T]
type Loss = undefined_until_used


def first[T](items: list[T]) -> T:
    kind = T
    return items[0], kind


class Box[T, *Shape, **P]:
    def get(self) -> T:
        return T

    def shadow(self):
        T = 1
        return T


def outer():
    def inner[U]():
        return U, T

    T = 2
    return inner
