# --add-noqa and --statistics golden: two TPF003 findings, one with a safe
# fix and one without (the `[-]` row), the second inside brackets, where the
# comment stays on the finding's own line.
import torch


def fit(net, batches, sgd):
    for inputs, targets in batches:
        out = net(inputs)
        torch.nn.functional.mse_loss(out, targets).backward()
        sgd.step()


def one_update(net, pair, sgd):
    torch.nn.functional.l1_loss(net(pair[0]), pair[1]).backward()
    sgd.step()
    return 0


def epochs(net, batches, sgd, n):
    for _ in range(n):
        for pair in batches:
            print(
                one_update(net, pair, sgd),
                "updated",
            )
