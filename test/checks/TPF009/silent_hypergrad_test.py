# TPF009 device_sync_in_inner_loop: a unit test (a `test*` method in a
# test suite's file, here run as a program too) reads each gradient to
# assert on it: the host reads are the checks.
import unittest

import torch

torch.manual_seed(0)


class HyperGradTest(unittest.TestCase):
    # case: one assertion per hyper-gradient after an unrolled inner loop
    def testUnrolledLearningRate(self):
        lr = torch.tensor(0.1, device="cuda", requires_grad=True)
        w = torch.randn(4, device="cuda", requires_grad=True)
        for _ in range(2):
            for _ in range(3):
                (g,) = torch.autograd.grad((w ** 2).sum(), (w,), create_graph=True)
                w = w - lr * g
            for h in torch.autograd.grad(w.sum(), (lr, w)):
                self.assertTrue(torch.isfinite(h).all().item())


if __name__ == "__main__":
    unittest.main()
