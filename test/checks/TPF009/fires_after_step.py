# TPF009 fires although a synchronize or a periodic test is near: the reads
# wait for work launched after the synchronize (the step), the test changes
# with each element (it is no logging interval), and a tensor that moved to
# the GPU is no host value.
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Linear(8, 8).cuda()
heads = [nn.MSELoss() for _ in range(3)]
opt = torch.optim.SGD(model.parameters(), lr=0.1)


# case: the synchronize comes before the step, the reads after it
def train_sync_first(steps):
    for it in range(steps):
        x = torch.randn(16, 8).cuda()
        out = model(x)
        aux = [crit(out, x) for crit in heads]
        torch.cuda.synchronize()  # expect: TPF009
        opt.zero_grad()
        sum(aux).backward()
        opt.step()
        for row in out.detach():
            print(row.norm().item())  # expect: TPF009


# case: a test on each element, not on the step
def train_filtered(steps):
    for step in range(steps):
        x = torch.randn(16, 8).cuda()
        out = model(x)
        out.pow(2).mean().backward()
        opt.step()
        opt.zero_grad()
        for row in out.detach():
            if row.sum() > 0:
                print(row.max().item())  # expect: TPF009


# case: a part of the batch moved to the GPU, then read per element
def train_moved(steps, batches):
    for step in range(steps):
        batch = next(batches)
        y = batch[1].cuda()
        loss = model(batch[0].cuda()).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        for v in y:
            print(v.float().mean().item())  # expect: TPF009


if __name__ == "__main__":
    train_sync_first(10)
    train_filtered(10)
    train_moved(10, iter([(torch.randn(4, 8), torch.randn(4))] * 10))
