# TPF022 backward_without_graph: files that turn requires_grad back on for
# parameters are left alone (a GAN toggling its discriminator, unfreezing a
# stage).
import torch
import torch.nn.functional as F


def fit(model, loader, opt):
    for x, y in loader:
        opt.zero_grad()
        F.cross_entropy(model(x), y).backward()
        opt.step()


def set_requires_grad(net, requires_grad=False):
    for p in net.parameters():
        p.requires_grad = requires_grad


# case: the discriminator is frozen for the generator's step, then unfrozen
def train_gan(G, D, loader, z_dim):
    opt_g = torch.optim.Adam(G.parameters(), lr=2e-4)
    for real in loader:
        D.requires_grad_(False)
        opt_d = torch.optim.Adam(D.parameters(), lr=2e-4)
        z = torch.randn(real.size(0), z_dim)
        opt_g.zero_grad()
        F.softplus(-D(G(z))).mean().backward()
        opt_g.step()
        set_requires_grad(D, True)
        opt_d.zero_grad()
        (F.softplus(-D(real)).mean() + F.softplus(D(G(z).detach())).mean()).backward()
        opt_d.step()


# case: freeze everything, then unfreeze the last stage
def unfreeze_some(model, loader):
    for p in model.parameters():
        p.requires_grad = False
    for p in model.layer4.parameters():
        p.requires_grad = True
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    fit(model, loader, opt)


# case: saliency maps on the frozen model, then the model is trained with
# requires_grad_(True)
def saliency(model, loader):
    model.requires_grad_(False)
    for x, y in loader:
        x.requires_grad_()
        F.cross_entropy(model(x), y).backward()
    model.requires_grad_(True)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for x, y in loader:
        opt.zero_grad()
        F.cross_entropy(model(x), y).backward()
        opt.step()
