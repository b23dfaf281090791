# TPF009 device_sync_in_inner_loop: an epoch loop whose own body only steps a
# scheduler (chosen on a branch among several) trains nothing itself, so the
# evaluation loop beside the batch loop is no inner loop of a step: one
# `.item()` per evaluation batch is not a per-element sync.
import torch
from torch import nn
from torch.optim.lr_scheduler import MultiStepLR, OneCycleLR

torch.manual_seed(0)


# case: the schedule picked by a flag, no else; a per-batch baseline read beside the batch loop
def fit(net, train_batches, val_batches, cfg):
    opt = torch.optim.AdamW(net.parameters(), lr=cfg.lr)
    if cfg.schedule == "steps":
        sched = MultiStepLR(opt, milestones=[30, 60])
    elif cfg.schedule == "onecycle":
        sched = OneCycleLR(opt, max_lr=cfg.lr, total_steps=cfg.epochs)
    for epoch in range(cfg.epochs):
        net.train()
        for x, y in train_batches:
            opt.zero_grad(set_to_none=True)
            nn.functional.mse_loss(net(x.cuda()), y.cuda()).backward()
            opt.step()
        if cfg.schedule in ("steps", "onecycle"):
            sched.step()
        total, seen = 0.0, 0
        for x, y in val_batches:
            gap = (x.cuda().mean(dim=1, keepdim=True) - y.cuda()).abs().mean()
            total += gap.item() * len(x)
            seen += len(x)
        print(epoch, total / max(seen, 1))


if __name__ == "__main__":
    fit(nn.Linear(8, 1).cuda(), [], [], None)
