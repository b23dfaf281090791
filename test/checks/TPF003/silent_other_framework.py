# TPF003 silent: MXNet Gluon, not PyTorch (a d2l-style trainer). With the
# default grad_req='write' every backward overwrites the gradients, so
# nothing accumulates and there is nothing to clear; the file imports no torch.
from mxnet import autograd, gluon, np, npx

npx.set_np()


class Trainer:
    def __init__(self, max_epochs):
        self.max_epochs = max_epochs

    def fit_epoch(self):
        for batch in self.train_dataloader:
            with autograd.record():
                loss = self.model.training_step(batch)
            loss.backward()
            self.optim.step(1)

    # case: the epoch loop runs a helper that backwards and steps
    def fit(self, model, data):
        self.model = model
        self.train_dataloader = data
        self.optim = model.configure_optimizers()
        for self.epoch in range(self.max_epochs):
            self.fit_epoch()


def train_batch(net, x, y, loss_fn, trainer):
    with autograd.record():
        l = loss_fn(net(x), y)
    l.backward()
    trainer.step(x.shape[0])


# case: a batch helper called per batch
def train_epochs(net, batches, loss_fn, trainer, epochs):
    for epoch in range(epochs):
        for x, y in batches:
            train_batch(net, x, y, loss_fn, trainer)


# case: a helper of the file taking the Gluon trainer as an argument
def run():
    net = gluon.nn.Dense(1)
    net.initialize()
    trainer = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.1})
    data = [(np.ones((8, 4)), np.ones((8, 1)))] * 10
    for step in range(100):
        train_batch(net, *data[step % 10], gluon.loss.L2Loss(), trainer)
