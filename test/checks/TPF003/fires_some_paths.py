# TPF003 on some paths only: gradients are cleared in a loop, but not on every
# path from one optimizer step to the next. Each case's optimizer steps every
# iteration, so an iteration that skips the clear steps on summed gradients.
import torch
import torch.nn.functional as F


# case: the clear sits under the logging test; the step does not
def fit_logged(net, batches, opt, log_every=50):
    for step, (x, y) in enumerate(batches):
        out = net(x)
        F.cross_entropy(out, y).backward()  # expect: TPF003
        opt.step()
        if step % log_every == 0:
            print(step, out.mean().item())
            opt.zero_grad()


# case: the clear is only in the else arm of a branch the step does not share
def fit_warmup(net, batches, opt, warmup):
    seen = 0
    for x, y in batches:
        if seen < warmup:
            seen += 1
        else:
            opt.zero_grad(set_to_none=True)
        (net(x) - y).pow(2).mean().backward()  # expect: TPF003
        opt.step()


# case: one arm of the loop's branch clears, the other backwards and steps
def fit_two_paths(net, batches, opt, use_amp):
    scaler = torch.cuda.amp.GradScaler()
    for x, y in batches:
        if use_amp:
            with torch.autocast("cuda"):
                loss = F.mse_loss(net(x), y)
            scaler.scale(loss).backward()  # expect: TPF003
            scaler.step(opt)
            scaler.update()
        else:
            opt.zero_grad()
            F.mse_loss(net(x), y).backward()
            opt.step()
