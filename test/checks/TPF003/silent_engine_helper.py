# TPF003 must stay silent: a DeepSpeed engine, built in a helper and
# stored on a wrapper object, clears the gradients in its own step(); the
# epoch loop reaches it only through a training helper.
import deepspeed
import torch.nn as nn


class Wrapper:
    def __init__(self, cfg):
        self.net = nn.Sequential(nn.Linear(cfg.d, cfg.d), nn.GELU(), nn.Linear(cfg.d, 1))


def setup(args):
    holder = Wrapper(args)
    holder.net, opt, _, _ = deepspeed.initialize(
        args=args, model=holder.net, model_parameters=holder.net.parameters()
    )
    return holder, opt


def one_epoch(holder, batches):
    for x, y in batches:
        loss = nn.functional.mse_loss(holder.net(x), y)
        holder.net.backward(loss)
        holder.net.step()


def run(args, batches):
    holder, _ = setup(args)
    for epoch in range(args.epochs):
        one_epoch(holder, batches)
