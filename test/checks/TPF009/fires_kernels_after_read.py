# TPF009 device_sync_in_inner_loop: work queued after the step's last host
# read (an EMA update of the model, a tensor reduction) is what the
# synchronize then waits for: a stall every step.
import torch

torch.manual_seed(0)


def ema_update(model, shadow, decay):
    for p, q in zip(model.parameters(), shadow.parameters()):
        q.data.mul_(decay).add_(p.data, alpha=1 - decay)


# case: the EMA kernels run between the read and the synchronize
def train(model, shadow, loader, opt, crit):
    for x, y in loader:
        loss = crit(model(x.cuda()), y.cuda())
        opt.zero_grad()
        loss.backward()
        opt.step()
        print(loss.item())
        ema_update(model, shadow, 0.999)
        torch.cuda.synchronize()  # expect: TPF009


# case: a tensor reduction after the read
def train_norm(model, loader, opt, crit):
    for x, y in loader:
        loss = crit(model(x.cuda()), y.cuda())
        opt.zero_grad()
        loss.backward()
        opt.step()
        value = loss.item()
        norm = model.weight.grad * 2
        torch.cuda.synchronize()  # expect: TPF009
        print(value, norm)


if __name__ == "__main__":
    train(None, None, [], None, None)
    train_norm(None, [], None, None)
