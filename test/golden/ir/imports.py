# Imports bind qualified names; aliases resolve to the same paths.
import os.path
import torch.nn as nn
import torch.nn.functional as F
from torch import optim
from torch.utils.data import DataLoader as DL
from . import sibling
from ..pkg.mod import thing as other
from math import *

a = nn.functional.softmax
b = F.softmax
c = optim.SGD
d = os.path.join
e = DL
