# TPF011: `Module.to(device)` moves the parameters in place; once they are
# on the device each later call finds them there and copies nothing, so a
# module moved inside the loop is no repeated transfer (PyTorch 2.x,
# nn.Module._apply). Silent: a model handed in and called in the loop, a
# module built in the file, and an averaging wrapper kept in a field whose
# part is put in eval mode elsewhere in the class.
# fires_module_moves.py keeps a tensor kept in a field, moved every step.
import torch
from torch import nn

gpu = torch.device("cuda")


def epoch(model, batches, opt):
    for x, y in batches:
        model.to(gpu)
        opt.zero_grad()
        nn.functional.cross_entropy(model(x.to(gpu)), y.to(gpu)).backward()
        opt.step()


def fresh(batches):
    net = nn.Sequential(nn.Linear(7, 7), nn.Tanh(), nn.Linear(7, 2))
    opt = torch.optim.Adam(net.parameters())
    for x, y in batches:
        net.cuda()
        opt.zero_grad()
        nn.functional.cross_entropy(net(x.cuda()), y.cuda()).backward()
        opt.step()


class Loop:
    def __init__(self, net, averager):
        self.net = net
        self.avg = averager
        self.opt = torch.optim.SGD(net.parameters(), lr=0.1)

    def sample(self, z):
        self.avg.shadow.eval()
        with torch.no_grad():
            return self.avg.shadow(z)

    def run(self, batches, device):
        for x in batches:
            self.opt.zero_grad()
            self.net(x.to(device)).square().mean().backward()
            self.opt.step()
            self.avg.to(device)
            self.avg.refresh()
