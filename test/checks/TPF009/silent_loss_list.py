# TPF009 device_sync_in_inner_loop: a list of the step's loss terms (one
# per decoder scale or refinement stage, a handful fixed by the model),
# each read once for the log: the list form of the dict of loss terms.
import torch
import torch.nn.functional as F

torch.manual_seed(3)


# case: terms appended in a loop over the scales, summed by hand after it
def fit_multiscale(denoiser, batches, sgd, history):
    denoiser.cuda()
    for noisy, clean in batches:
        noisy, clean = noisy.cuda(), clean.cuda()
        sgd.zero_grad()
        outs = denoiser(noisy)
        terms = []
        for s in range(len(history)):
            terms.append(F.l1_loss(outs[s], F.avg_pool1d(clean, 2**s)))
            history[s] += terms[-1].item()
        total = terms[0]
        for s in range(1, len(terms)):
            total = total + terms[s]
        total.backward()
        sgd.step()


# case: a comprehension of weighted stage losses, read after the step
def fit_stages(net, batches, adam, weights, meters):
    for left, right, target in batches:
        adam.zero_grad()
        preds = net(left.cuda(), right.cuda())
        stage = [w * F.smooth_l1_loss(p, target.cuda()) for w, p in zip(weights, preds)]
        torch.stack(stage).sum().backward()
        adam.step()
        for k in range(len(stage)):
            meters[k].update(stage[k].item())


# case: the loop runs over the list itself, under a scaler
def fit_amp(net, batches, opt, scaler):
    for x, y in batches:
        opt.zero_grad()
        with torch.autocast("cuda"):
            heads = net(x.cuda())
            parts = [F.mse_loss(h, y.cuda()) for h in heads]
        scaler.scale(sum(parts) / len(parts)).backward()
        scaler.step(opt)
        scaler.update()
        for part in parts:
            print(f"{part.item():.4f}", end=" ")


if __name__ == "__main__":
    fit_multiscale(None, [], None, [0.0, 0.0, 0.0])
