# TPF002 inference_without_no_grad: evaluation loops over models whose own
# forward makes a leaf that requires grad and hands it to code that
# differentiates it (a refiner object, a solver from another package):
# they need autograd on, and no_grad around the call would break them.
import torch
import torch.nn as nn
from solvers import GradientSolver


class RefinedClassifier(nn.Module):
    def __init__(self, backbone, refiner):
        super().__init__()
        self.backbone = backbone
        self.refiner = refiner

    def forward(self, x):
        x = (x - 0.5) / 0.5
        x.requires_grad_()
        return self.refiner.refine(self.backbone, x)


class LatentSearch(nn.Module):
    def __init__(self, decoder, dim=16):
        super().__init__()
        self.decoder = decoder
        self.dim = dim
        self.solver = GradientSolver(lr=0.1, steps=5)

    def forward(self, target):
        z = torch.zeros(target.shape[0], self.dim, device=target.device, requires_grad=True)
        z = self.solver.minimize(lambda v: (self.decoder(v) - target).pow(2).sum(), z)
        return self.decoder(z)


def evaluate(refiner):
    backbone = nn.Sequential(nn.Conv2d(3, 8, 3), nn.ReLU(), nn.Flatten(), nn.LazyLinear(10))
    decoder = nn.Sequential(nn.Linear(16, 64), nn.Tanh(), nn.Linear(64, 3 * 8 * 8))
    images = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(torch.randn(64, 3, 8, 8)), batch_size=8)

    classifier = RefinedClassifier(backbone, refiner).cuda()
    classifier.eval()
    top = []
    # case: the forward calls requires_grad_() on its input
    for (batch,) in images:
        top.append(classifier(batch.cuda()).argmax(1).cpu())

    search = LatentSearch(decoder).cuda()
    search.eval()
    errs = []
    # case: the forward builds torch.zeros(..., requires_grad=True)
    for (batch,) in images:
        errs.append(search(batch.cuda().flatten(1)).argmax(1).cpu())
    return top, errs


print(evaluate(None))
