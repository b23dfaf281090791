# TPF009 device_sync_in_inner_loop: a scheduler chosen on a branch does not
# hide a per-element sync inside the batch loop itself.
import torch
from torch import nn
from torch.optim.lr_scheduler import ExponentialLR, LambdaLR

torch.manual_seed(0)


# case: per-sample reads inside the step loop; the epoch loop only schedules
def fit(net, batches, cfg):
    opt = torch.optim.SGD(net.parameters(), lr=0.1)
    if cfg.decay:
        sched = ExponentialLR(opt, 0.9)
    elif cfg.warmup:
        sched = LambdaLR(opt, lambda e: min(1.0, (e + 1) / 5))
    for epoch in range(cfg.epochs):
        for x, y in batches:
            out = net(x.cuda())
            loss = nn.functional.cross_entropy(out, y.cuda())
            opt.zero_grad()
            loss.backward()
            opt.step()
            hits = 0
            for i in range(out.shape[0]):
                hits += int(out[i].argmax().item() == y[i].item())  # expect: TPF009
        sched.step()


if __name__ == "__main__":
    fit(nn.Linear(8, 4).cuda(), [], None)
