from .optim_util import zero_grads, scale_loss
from .nets import *
