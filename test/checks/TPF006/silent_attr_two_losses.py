# TPF006 silent: the loss attribute is CrossEntropyLoss only when label
# smoothing is off; the log_softmax branch runs when it is on, and then the
# attribute is a label-smoothed NLL function, which wants log-probabilities.
import torch
import torch.nn.functional as F


def label_smoothed_nll_loss(lprobs, target, eps):
    nll = -lprobs.gather(-1, target.unsqueeze(-1)).squeeze(-1)
    return ((1 - eps) * nll - eps * lprobs.mean(-1)).mean()


class Seq2SeqTrainer:
    def __init__(self, model, label_smoothing):
        self.model = model
        self.label_smoothing = label_smoothing
        if label_smoothing == 0:
            self.loss_fn = torch.nn.CrossEntropyLoss(ignore_index=0)
        else:
            self.loss_fn = label_smoothed_nll_loss

    # case: the smoothed branch feeds log_softmax to the attribute
    def compute_loss(self, x, labels):
        logits = self.model(x)
        if self.label_smoothing == 0:
            return self.loss_fn(logits.view(-1, logits.shape[-1]), labels.view(-1))
        lprobs = F.log_softmax(logits, dim=-1)
        return self.loss_fn(lprobs, labels, self.label_smoothing)


class Distiller:
    def __init__(self, teacher, student, kd):
        self.teacher, self.student = teacher, student
        self.criterion = torch.nn.CrossEntropyLoss()
        if kd:
            self.criterion = torch.nn.KLDivLoss(reduction="batchmean")

    # case: an attribute rebound to another criterion
    def loss(self, x):
        with torch.no_grad():
            target = F.softmax(self.teacher(x), dim=-1)
        return self.criterion(F.log_softmax(self.student(x), dim=-1), target)


class Classifier:
    def __init__(self, model, loss_fn=None):
        self.model = model
        self.loss_fn = torch.nn.CrossEntropyLoss()
        if loss_fn is not None:
            self.loss_fn = loss_fn

    # case: the attribute may be the caller's loss
    def step(self, x, y):
        return self.loss_fn(torch.log_softmax(self.model(x), dim=1), y)
