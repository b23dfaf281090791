# TPF004 silent: meta-learning in learn2learn's style. Each outer step adapts a clone per task and
# backpropagates the task's query loss, summing the gradients over the tasks; before the step the
# summed gradients are averaged by hand over the parameters, so the loss needs no division.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


def meta_train(model, tasks, meta_batch_size, iterations):
    opt = torch.optim.Adam(model.parameters(), lr=3e-3)
    for _ in range(iterations):
        opt.zero_grad()
        for _ in range(meta_batch_size):
            support, query = next(tasks)
            fast = model(support[0])
            adapted_loss = F.cross_entropy(model(query[0]) + 0 * fast.mean(), query[1])
            adapted_loss.backward()
        for p in model.parameters():
            p.grad.data.mul_(1.0 / meta_batch_size)
        opt.step()


def reptile(model, tasks, n_tasks):
    opt = torch.optim.SGD(model.parameters(), lr=1.0)
    for _ in range(100):
        for _ in range(n_tasks):
            x, y = next(tasks)
            F.mse_loss(model(x), y).backward()
        for p in model.parameters():
            p.grad /= n_tasks
        opt.step()
        opt.zero_grad()


meta_train(nn.Linear(8, 5), iter([]), 4, 10)
reptile(nn.Linear(8, 1), iter([]), 5)
