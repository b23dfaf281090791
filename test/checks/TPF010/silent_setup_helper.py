# TPF010 partial_seeding: nothing seeded here, but the project's own start-up
# helper runs first and may seed every generator out of sight.
import torch
import torch.nn.functional as F

from myproject.common import compute_init


# case: a start-up helper imported from the project (compute_init) is called before training
def main(model, loader):
    device = compute_init("cuda")
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    for x, y in loader:
        opt.zero_grad()
        F.cross_entropy(model(x.to(device)), y.to(device)).backward()
        opt.step()


if __name__ == "__main__":
    main(None, [])
