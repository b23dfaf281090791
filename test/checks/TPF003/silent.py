# TPF003 must stay silent: correct ways of clearing gradients.
import torch
import torch.nn as nn
import torch.nn.functional as F


# case: zero_grad at the top of every iteration
def train(model, loader, optimizer, criterion):
    for x, y in loader:
        optimizer.zero_grad(set_to_none=True)
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()


# case: gradient accumulation, step and zero_grad every k batches
def train_accumulate(model, loader, optimizer, accum_steps=4):
    for i, (x, y) in enumerate(loader):
        loss = F.cross_entropy(model(x), y) / accum_steps
        loss.backward()
        if (i + 1) % accum_steps == 0:
            optimizer.step()
            optimizer.zero_grad()


# case: accumulation with zero_grad at the top under the same counter
def train_accumulate_top(model, loader, optimizer, accum_steps=4):
    for i, (x, y) in enumerate(loader):
        if i % accum_steps == 0:
            optimizer.zero_grad()
        (F.cross_entropy(model(x), y) / accum_steps).backward()
        if (i + 1) % accum_steps == 0:
            optimizer.step()


# case: gradients cleared by hand and through the model
def train_manual_clear(model, loader, optimizer):
    for x, y in loader:
        for p in model.parameters():
            p.grad = None
        F.mse_loss(model(x), y).backward()
        optimizer.step()


def train_model_zero_grad(model, loader, opt):
    for x, y in loader:
        model.zero_grad()
        F.mse_loss(model(x), y).backward()
        opt.step()


# case: DeepSpeed engine clears gradients in its own step
def train_deepspeed(model_engine, loader):
    for step, batch in enumerate(loader):
        loss = model_engine(batch)
        model_engine.backward(loss)
        model_engine.step()


# case: a helper does the whole step, zero_grad included
def step_fn(model, optimizer, x, y):
    optimizer.zero_grad()
    loss = F.cross_entropy(model(x), y)
    loss.backward()
    optimizer.step()
    return loss.detach()


def train_with_helper(model, optimizer, loader):
    for x, y in loader:
        step_fn(model, optimizer, x, y)


# case: L-BFGS closure clears inside the closure
def train_lbfgs(model, x, y, iters=20):
    optimizer = torch.optim.LBFGS(model.parameters())
    for _ in range(iters):
        def closure():
            optimizer.zero_grad()
            loss = F.mse_loss(model(x), y)
            loss.backward()
            return loss
        optimizer.step(closure)


# case: full-batch accumulation over an inner loop, one step per epoch
def train_full_batch(model, loader, optimizer, epochs):
    for epoch in range(epochs):
        optimizer.zero_grad()
        for x, y in loader:
            F.cross_entropy(model(x), y).backward()
        optimizer.step()


# case: REINFORCE: env.step is not an optimizer step
def reinforce(policy, env, optimizer, episodes):
    for episode in range(episodes):
        state = env.reset()
        log_probs, rewards = [], []
        done = False
        while not done:
            probs = policy(state)
            action = torch.multinomial(probs, 1)
            state, reward, done, _ = env.step(action.item())
            log_probs.append(torch.log(probs[action]))
            rewards.append(reward)
        loss = -torch.stack(log_probs).sum() * sum(rewards)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


# case: torch.autograd.grad does not accumulate into .grad
def meta_step(model, tasks, meta_opt):
    for x, y in tasks:
        loss = F.mse_loss(model(x), y)
        grads = torch.autograd.grad(loss, list(model.parameters()))
        for p, g in zip(model.parameters(), grads):
            p.grad = g
        meta_opt.step()


# case: Lightning manual optimization
class ManualModule:
    def training_step(self, batch, batch_idx):
        opt = self.optimizers()
        for micro in batch:
            opt.zero_grad()
            loss = self.compute_loss(micro)
            self.manual_backward(loss)
            opt.step()

    def compute_loss(self, micro):
        return micro.sum()


# case: accelerate with gradient accumulation handled by the context manager
def train_accelerate(accelerator, model, optimizer, train_dataloader, lr_scheduler):
    for batch in train_dataloader:
        with accelerator.accumulate(model):
            loss = model(**batch).loss
            accelerator.backward(loss)
            optimizer.step()
            lr_scheduler.step()
            optimizer.zero_grad()


# case: parameters' gradients zeroed in place
def train_inplace_zero(model, loader, optimizer):
    for x, y in loader:
        for p in model.parameters():
            if p.grad is not None:
                p.grad.detach_()
                p.grad.zero_()
        F.l1_loss(model(x), y).backward()
        optimizer.step()
