# TPF009 device_sync_in_inner_loop: a list built every step whose items
# are not the loss the step differentiates: per-sample errors, one sync
# per element of the batch.
import torch
import torch.nn.functional as F

torch.manual_seed(3)


# case: per-sample errors in a list, read one by one; the loss is the mean
def fit(regressor, batches, opt, worst):
    for x, y in batches:
        x, y = x.cuda(), y.cuda()
        opt.zero_grad()
        pred = regressor(x)
        F.mse_loss(pred, y).backward()
        opt.step()
        errors = [(pred[i] - y[i]).abs().max() for i in range(pred.shape[0])]
        for e in errors:
            worst.append(e.item())  # expect: TPF009


if __name__ == "__main__":
    fit(None, [], None, [])
