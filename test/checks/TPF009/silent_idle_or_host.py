# TPF009 silent: per-element reads that wait for nothing. After an explicit
# `torch.cuda.synchronize()` with no backward or step launched since, the
# queue is empty; a read under a test the elements share but the steps do
# not (`if step % 50 == 0:`) is a log line some steps write; numpy arrays
# and the parts of a batch drawn with `next(iter(loader))` are on the host.
import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
np.random.seed(0)
model = nn.Linear(8, 8).cuda()
heads = [nn.MSELoss() for _ in range(3)]
opt = torch.optim.SGD(model.parameters(), lr=0.1)
meters = [[] for _ in heads]


# case: per-head loss values read after the step's synchronize (timing it)
def train_timed(steps):
    for it in range(steps):
        x = torch.randn(16, 8).cuda()
        out = model(x)
        aux = [crit(out, x) for crit in heads]
        opt.zero_grad()
        sum(aux).backward()
        opt.step()
        torch.cuda.synchronize()
        print(it, sum(aux).item())
        for m, l in zip(meters, aux):
            m.append(l.item())


# case: the synchronize inside the per-term loop, the reads after it
def train_synced_terms(steps):
    for step in range(steps):
        x = torch.randn(16, 8).cuda()
        terms = [crit(model(x), x) for crit in heads]
        opt.zero_grad()
        sum(terms).backward()
        opt.step()
        for i, t in enumerate(terms):
            torch.cuda.synchronize()
            print(i, t.item())


# case: reads on logging steps only, the test inside the per-term loop
def train_logged(loader, print_freq, rank):
    for step, (inputs, targets) in enumerate(loader):
        out = model(inputs.cuda())
        parts = out.sub(targets.cuda()).pow(2).mean(0)
        parts.sum().backward()
        opt.step()
        opt.zero_grad(set_to_none=True)
        for name, value in zip(["a", "b", "c"], parts.detach()):
            if rank == 0 and step % print_freq == 0:
                print(step, name, value.item())


# case: returns computed per rollout row on numpy arrays
def train_rollouts(steps):
    for step in range(steps):
        loss = model(torch.randn(4, 8).cuda()).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        rewards = np.asarray([np.random.rand(5) for _ in range(4)], dtype=np.float32).swapaxes(1, 0)
        dones = np.asarray([np.zeros(5) for _ in range(4)], dtype=bool).swapaxes(1, 0)
        for n, (r, d) in enumerate(zip(rewards, dones[:, 1:])):
            r = r.tolist()
            d = d.tolist()


# case: statistics of the host batch from next(iter(loader)); only obs is moved
def train_stats(steps):
    data = TensorDataset(torch.randn(64, 8), torch.rand(64), torch.zeros(64))
    data_iter = iter(DataLoader(data, batch_size=8, num_workers=2, pin_memory=True))
    stats = {}
    for step in range(steps):
        batch = next(data_iter)
        obs = batch[0].cuda()
        loss = model(obs).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        for k in [1, 2]:
            stats.setdefault(k, []).append(batch[k].float().mean().item())


if __name__ == "__main__":
    train_timed(10)
    train_synced_terms(10)
    train_logged([(torch.randn(4, 8), torch.randn(4, 8))] * 10, 5, 0)
    train_rollouts(10)
    train_stats(8)
