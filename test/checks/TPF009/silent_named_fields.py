# TPF009 device_sync_in_inner_loop: a loop over a literal list of field
# names (bound once to a module global, or written in the loop) reads the
# named fields of a record of loss terms: a handful fixed by the code.
import torch

torch.manual_seed(0)

LOG_FIELDS = ["recon", "kl", "reward"]


# case: the names come from a module global bound to a literal list
def train(model, loader, opt):
    history = {k: [] for k in LOG_FIELDS}
    for batch in loader:
        total, info = model(batch.cuda())
        opt.zero_grad()
        total.backward()
        opt.step()
        for field in LOG_FIELDS:
            history[field].append(getattr(info, field).item())


# case: the names are written in the loop header
def train_inline(model, loader, opt):
    for batch in loader:
        total, info = model(batch.cuda())
        opt.zero_grad()
        total.backward()
        opt.step()
        for field in ("recon", "kl"):
            print(field, getattr(info, field).item())


if __name__ == "__main__":
    train(None, [], None)
    train_inline(None, [], None)
