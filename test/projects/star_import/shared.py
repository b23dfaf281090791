# A second layer of star imports: evaluate.py reaches torch through this one too.
from common import *


def accuracy(logits, y):
    return (logits.argmax(1) == y).float().mean().item()
