# TPF009 device_sync_in_inner_loop: syncs that are fine.
import time

import torch
import torch.nn.functional as F

torch.manual_seed(0)


# case: one .item() per step for logging
def train(model, loader, optimizer, log):
    for step, (x, y) in enumerate(loader):
        optimizer.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        optimizer.step()
        log.append(loss.item())


# case: accuracy computed on the device, one sync per step
def train_acc(model, loader, optimizer):
    correct = 0
    for x, y in loader:
        optimizer.zero_grad()
        logits = model(x)
        F.cross_entropy(logits, y).backward()
        optimizer.step()
        correct += (logits.argmax(1) == y).sum().item()


# case: synchronize only at the logging interval
def timed(model, loader, optimizer, log_every=100):
    t0 = time.time()
    for step, (x, y) in enumerate(loader):
        optimizer.zero_grad()
        F.mse_loss(model(x), y).backward()
        optimizer.step()
        if step % log_every == 0:
            torch.cuda.synchronize()
            print(step, time.time() - t0)


# case: per-element syncs in an evaluation helper, outside the training step
@torch.no_grad()
def evaluate(model, loader):
    hits = 0
    for x, y in loader:
        preds = model(x).argmax(1)
        for i in range(len(y)):
            hits += int(preds[i].item() == y[i].item())
    return hits


# case: the epoch loop's inner loop is the step loop: one .item() per step
def epochs(model, loader, optimizer, n):
    for epoch in range(n):
        for x, y in loader:
            optimizer.zero_grad()
            loss = F.cross_entropy(model(x), y)
            loss.backward()
            optimizer.step()
            print(epoch, loss.item())


# case: a validation loop beside the step loop inside the epoch loop
def fit(model, train_loader, val_loader, optimizer, epochs):
    for epoch in range(epochs):
        model.train()
        for x, y in train_loader:
            optimizer.zero_grad()
            F.cross_entropy(model(x), y).backward()
            optimizer.step()
        model.eval()
        val_loss = 0.0
        with torch.no_grad():
            for x, y in val_loader:
                val_loss += F.cross_entropy(model(x), y).item()
        print(epoch, val_loss)


# case: periodic validation from inside the step loop, under no_grad
def train_with_dev(model, train_iter, dev_iter, opt, dev_every=1000):
    for step, batch in enumerate(train_iter):
        opt.zero_grad()
        F.cross_entropy(model(batch.x), batch.y).backward()
        opt.step()
        if step % dev_every == 0:
            correct = 0
            model.eval()
            with torch.no_grad():
                for dev in dev_iter:
                    correct += (model(dev.x).argmax(1) == dev.y).sum().item()
            model.train()
            print(step, correct)


# case: a test that synchronizes every step to check gradients
class TestDistributedSteps:
    def test_grad_every_step(self, net, opt, inputs):
        for x in inputs:
            opt.zero_grad()
            net(x).sum().backward()
            opt.step()
            torch.cuda.synchronize()


# case: pass@k logged per k, but only on evaluation steps (every eval_every steps)
def rl_steps(model, opt, batches, num_steps, eval_every, k_max):
    for step in range(num_steps):
        if step % eval_every == 0:
            passk = torch.zeros(k_max)
            print([f"pass@{k}: {passk[k - 1].item():.3f}" for k in range(1, k_max + 1)])
        x, y = next(batches)
        opt.zero_grad()
        F.cross_entropy(model(x), y).backward()
        opt.step()


# case: one sync per micro-batch of a loop that runs backward itself
def micro_batched(model, opt, batches, n_micro):
    rewards = []
    for step, (xs, ys, rs) in enumerate(batches):
        for m in range(n_micro):
            (F.cross_entropy(model(xs[m]), ys[m]) / n_micro).backward()
            rewards.append(rs[m].mean().item())
        opt.step()
        opt.zero_grad()
