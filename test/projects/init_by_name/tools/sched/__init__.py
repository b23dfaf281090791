"""A package whose code is in its __init__.py, imported by that file's name
(`from tools.sched.__init__ import Warmup`): CPython loads it as the module
`tools.sched.__init__`, beside the package."""
import torch


class Warmup:
    def __init__(self, opt, steps):
        self.opt = opt
        self.steps = steps
        self.done = 0

    def advance(self, net):
        torch.nn.utils.clip_grad_norm_(net.parameters(), 1.0)
        self.opt.step()
        self.done += 1
