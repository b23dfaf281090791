# TPF003 must stay silent: the clear and the backward's step are decided by
# one test of a flag fixed for the loop; asserts and `continue` between
# them leave the loop or skip the step together with the clear.
import torch


# case: `if not inference:` clears, `if inference: continue` skips the backward
def run(model, optimizer, batches, inference=False):
    outs = []
    for i in range(100):
        if not inference:
            optimizer.zero_grad()
        out = model(batches[i % len(batches)].cuda())
        assert out.shape[0] == 8
        if inference:
            continue
        loss = out.mean()
        loss.backward()
        optimizer.step()
        outs.append(loss.item())
    return outs


# case: asserts on the gradients between the backward and the step
def run_checked(model, optimizer, batches, inference=False):
    for x in batches:
        if not inference:
            optimizer.zero_grad()
        out = model(x)
        assert out.isfinite().all()
        if inference:
            continue
        out.mean().backward()
        for p in model.parameters():
            assert p.grad is not None
        ok = optimizer.step()
        assert ok is None


# case: a `raise` on a bad batch leaves the loop for good
def run_raising(model, optimizer, batches, frozen):
    for x in batches:
        if not frozen:
            optimizer.zero_grad()
        if x.numel() == 0:
            raise ValueError("empty batch")
        if frozen:
            continue
        model(x).sum().backward()
        optimizer.step()


# case: a `break` out of the loop after the backward
def run_until(model, optimizer, batches, frozen, limit):
    for x in batches:
        if frozen:
            continue
        optimizer.zero_grad()
        loss = model(x).sum()
        loss.backward()
        if loss.item() > limit:
            break
        optimizer.step()
