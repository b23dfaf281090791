# TPF008 must stay silent: eval() and the step are paired by a mode argument.
# The evaluation entry point calls the shared loop with its default mode,
# and the loop steps only when that mode is the training one, a branch only
# the training entry point (which calls model.train() first) reaches.
import torch
import torch.nn as nn

TRAIN = "train"
EVAL = "eval"


class ModeType:
    TRAIN = "train"
    EVAL = "eval"


class Runner:
    def __init__(self, loss_fn):
        self.loss_fn = loss_fn

    # case: the default mode of the loop is EVAL, a string constant of the module
    def train(self, loader, model, optimizer):
        model.train()
        return self.run(loader, model, optimizer, TRAIN)

    def eval(self, loader, model, optimizer):
        model.eval()
        return self.run(loader, model, optimizer)

    def run(self, loader, model, optimizer, mode=EVAL):
        total = 0.0
        for x, y in loader:
            loss = self.loss_fn(model(x.cuda()), y.cuda())
            if mode == TRAIN:
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
                continue
            total += loss.item()
        return total

    # case: the mode as a member of a class of constants, passed by keyword
    def evaluate(self, loader, model, optimizer):
        model.eval()
        return self.loop(loader, model, optimizer, mode=ModeType.EVAL)

    def loop(self, loader, model, optimizer, mode=ModeType.TRAIN):
        for x, y in loader:
            loss = self.loss_fn(model(x.cuda()), y.cuda())
            if mode != ModeType.EVAL:
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()


# case: an epoch loop that evaluates through the runner and trains through it
def fit(runner, model, optimizer, train_loader, val_loader, epochs):
    for epoch in range(epochs):
        runner.train(train_loader, model, optimizer)
        runner.eval(val_loader, model, optimizer)


# case: a bool default of the loop helper, not passed by the evaluation call
def step_loop(model, optimizer, loader, training=False):
    for x, y in loader:
        loss = nn.functional.mse_loss(model(x), y)
        if training:
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()


def validate_then_go_on(model, optimizer, loader, epochs):
    for epoch in range(epochs):
        model.train()
        step_loop(model, optimizer, loader, training=True)
        model.eval()
        step_loop(model, optimizer, loader)
