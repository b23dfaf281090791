# TPF011 must stay silent: a model moved to the host for a rollout and back
# to the GPU for its own update, every iteration (`torch.device("cpu")` is
# the host, like "cpu").
import torch
import torch.nn as nn

device = torch.device("cuda")


# case: a discriminator scored by CPU workers, trained on the GPU
def train_gail(discrim, opt, collect, iters):
    for it in range(iters):
        discrim.to(torch.device("cpu"))
        batch = collect(discrim)
        discrim.to(device)
        loss = discrim(batch.to(device)).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()


# case: the host named with an index, `torch.device("cpu", 0)`
def train_indexed(policy, opt, rollout, iters):
    for it in range(iters):
        policy.to(torch.device("cpu", 0))
        obs = rollout(policy)
        policy.to(device)
        opt.zero_grad()
        policy(obs.to(device)).sum().backward()
        opt.step()


# case: the host as a keyword, `type="cpu"`
def train_keyword(model, opt, sample, iters):
    for it in range(iters):
        model.to(torch.device(type="cpu"))
        x = sample(model)
        model.to(device)
        opt.zero_grad()
        model(x.to(device)).sum().backward()
        opt.step()


# case: `.to(device=torch.device("cpu"))` then `.cuda()`
def train_cuda(model, opt, sample, iters):
    for it in range(iters):
        model.to(device=torch.device("cpu"))
        x = sample(model)
        model.cuda()
        opt.zero_grad()
        model(x.cuda()).sum().backward()
        opt.step()
