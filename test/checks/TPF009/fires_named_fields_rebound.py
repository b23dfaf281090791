# TPF009 device_sync_in_inner_loop: a global list of names that is also
# rebound to something else (data, an option) is not known to be a
# handful of fields: a per-element copy in a loop over it still fires.
import torch

torch.manual_seed(0)

FIELDS = ["recon", "kl"]


def configure(names):
    global FIELDS
    FIELDS = names


FIELDS = sorted(open("fields.txt").read().split())


# case: FIELDS is also bound from a file
def train(model, loader, opt):
    for batch in loader:
        total, info = model(batch.cuda())
        opt.zero_grad()
        total.backward()
        opt.step()
        for field in FIELDS:
            print(getattr(info, field).item())  # expect: TPF009


if __name__ == "__main__":
    train(None, [], None)
