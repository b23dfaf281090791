# TPF003 still fires when the branch that skips the clear stays in the loop:
# only an arm that leaves the loop (assert, raise, return, break) picks no
# iterations.
import torch


# case: the clear under a flag, the step under a per-batch test that stays in the loop
def run(model, optimizer, batches, inference=False):
    for x in batches:
        if not inference:
            optimizer.zero_grad()
        out = model(x)
        if out.isnan().any():
            print("nan")
        else:
            out.mean().backward()  # expect: TPF003
        optimizer.step()


# case: an assert between, but the clear's flag is not the step's
def run_two_flags(model, optimizer, batches, warm, frozen):
    for x in batches:
        if warm:
            optimizer.zero_grad()
        out = model(x)
        assert out.shape[0] > 0
        if frozen:
            continue
        out.mean().backward()  # expect: TPF003
        optimizer.step()


# case: a per-batch skip of the clear with an assert after it
def run_skip(model, optimizer, batches):
    for i, x in enumerate(batches):
        if i % 3:
            optimizer.zero_grad()
        loss = model(x).mean()
        assert loss.isfinite()
        loss.backward()  # expect: TPF003
        optimizer.step()


# case: `continue` on a flag, the clear on another flag
def run_continue(model, optimizer, batches, inference, clear):
    for x in batches:
        if clear:
            optimizer.zero_grad()
        if inference:
            continue
        model(x).sum().backward()  # expect: TPF003
        optimizer.step()
