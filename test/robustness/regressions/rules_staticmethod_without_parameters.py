# Once crashed (SIGSEGV, issue 17 review 19: a test of NVIDIA/apex): a
# method with no parameter at all, called through `self`, inside a nested
# loop whose body calls a method that runs backward. Binding the call's
# receiver to the callee's parameter 0 read past an empty parameter list.
import torch


class GradTest:
    @staticmethod
    def widths():
        return [4, 8]

    def step(self, width=4):
        torch.randn(width, requires_grad=True).pow(2).sum().backward()

    def run_all(self):
        for width in [4, 8]:
            for _ in self.widths():
                self.step(width=width)
