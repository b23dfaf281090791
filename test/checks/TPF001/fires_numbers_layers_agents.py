# TPF001 must fire: the true findings next to the Python-number, per-layer
# and per-agent shapes that stay silent. A tensor times an int is a
# tensor; a loop over an attribute whose items are batches (not layers it calls) runs
# training steps; one optimizer stepped every iteration of a loop over
# models makes its iterations steps.
import torch
import torch.nn.functional as F

net = torch.nn.Linear(8, 2)
opt = torch.optim.SGD(net.parameters(), lr=0.1)


def epoch(loader, accum: int):
    scaled = []
    for x, y in loader:
        loss = F.mse_loss(net(x), y) / accum
        loss.backward()
        opt.step()
        opt.zero_grad()
        scaled.append(loss * accum)  # expect: TPF001
    return len(scaled)


class Runner:
    def __init__(self, model, batches):
        self.model = model
        self.batches = batches
        self.opt = torch.optim.Adam(model.parameters())

    def run(self):
        seen = []
        for x, y in self.batches:
            self.opt.zero_grad()
            out = F.cross_entropy(self.model(x), y)
            out.backward()
            self.opt.step()
            seen.append(out)  # expect: TPF001
        print(len(seen))

    def round_robin(self, heads, obs, target):
        losses = []
        for k in range(len(heads)):
            self.opt.zero_grad()
            part = F.l1_loss(heads[k](obs), target)
            part.backward()
            self.opt.step()
            losses.append(part)  # expect: TPF001
        return losses
