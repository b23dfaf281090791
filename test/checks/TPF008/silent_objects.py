# TPF008 must stay silent: the model put in eval mode is not the one an
# optimizer steps (objects by allocation site, not names).
import torch
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP
from nets import *  # noqa: F403  (classes the analysis cannot see)


# case: a recipe object whose setup() loads a frozen teacher from a
# factory and returns it in eval mode; the student's parameters go to an
# optimizer built by another factory.
class DistillRecipe:
    def setup(self, cfg):
        self.student = self._build(cfg.student)
        self.teacher = self._load_teacher(cfg.teacher)
        self.opt = registry.instantiate(cfg.optim, self.student.parameters())

    def _build(self, cfg):
        return registry.instantiate(cfg)

    def _load_teacher(self, cfg):
        net = registry.instantiate(cfg)
        net.load_state_dict(torch.load(cfg.path, weights_only=True))
        net.eval()
        check_dtypes(net.named_parameters())
        return net

    def train(self, batches):
        self.student.train()
        for x, y in batches:
            with torch.no_grad():
                soft = self.teacher(x)
            loss = kd_loss(self.student(x), soft, y)
            loss.backward()
            self.opt.step()
            self.opt.zero_grad()


def main(cfg, batches):
    recipe = DistillRecipe()
    recipe.setup(cfg)
    recipe.train(batches)


# case: a perceptual network of another module, frozen in eval mode, whose
# forward runs with gradients on (they flow into the generator)
generator = DDP(UpscaleNet().cuda())
perceptual = PerceptualNet()
perceptual.eval()
opt_g = torch.optim.Adam(generator.parameters(), lr=2e-4)
for epoch in range(100):
    for lo, hi in pairs:
        opt_g.zero_grad()
        fake = generator(lo)
        loss = nn.functional.l1_loss(perceptual(fake), perceptual(hi))
        loss.backward()
        opt_g.step()


# case: eval mode chosen for the training itself: set right before a
# layer-wise distillation loop, with no evaluation in between
def layerwise(student, teacher, layers, batches, lr):
    student.eval()
    teacher.eval()
    for layer in layers:
        opt = torch.optim.AdamW(layer.parameters(), lr=lr)
        for x in batches:
            with torch.no_grad():
                target = teacher(x)
            out = layer(x)
            opt.zero_grad()
            nn.functional.mse_loss(out, target).backward()
            opt.step()
