# TPF008 fires where the mode argument does not keep the step away from the
# evaluation: the loop's default mode is the training one, or the call
# passes it, so the step runs right after model.eval().
import torch
import torch.nn as nn

TRAIN = "train"
EVAL = "eval"


class Runner:
    def __init__(self, loss_fn):
        self.loss_fn = loss_fn

    # case: the default is TRAIN and the evaluation call passes nothing
    def eval(self, loader, model, optimizer):
        model.eval()  # expect: TPF008
        return self.run(loader, model, optimizer)

    def run(self, loader, model, optimizer, mode=TRAIN):
        for x, y in loader:
            loss = self.loss_fn(model(x.cuda()), y.cuda())
            if mode == TRAIN:
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()

    # case: the evaluation call passes the training mode
    def evaluate(self, loader, model, optimizer):
        model.eval()  # expect: TPF008
        return self.loop(loader, model, optimizer, TRAIN)

    def loop(self, loader, model, optimizer, mode=EVAL):
        for x, y in loader:
            loss = self.loss_fn(model(x.cuda()), y.cuda())
            if mode != EVAL:
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()

    # case: the mode is not a constant here
    def check(self, loader, model, optimizer, mode):
        model.eval()  # expect: TPF008
        return self.loop(loader, model, optimizer, mode)


# case: a bool default True, not passed
def step_loop(model, optimizer, loader, training=True):
    for x, y in loader:
        loss = nn.functional.mse_loss(model(x), y)
        if training:
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()


def validate(model, optimizer, loader):
    model.eval()  # expect: TPF008
    step_loop(model, optimizer, loader)
