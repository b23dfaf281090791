# TPF006 must stay silent: `self.criterion` is a CrossEntropyLoss only when
# smoothing is off, and the log_softmax branch runs only when it is on; there
# the call passes (log_probs, target, eps, pad_id=...), which the module's
# forward(input, target) would reject, so it calls another loss.
import torch
import torch.nn.functional as F


class SmoothedTrainer:
    def __init__(self, model, smoothing, pad):
        self.model = model
        self.smoothing = smoothing
        self.pad = pad
        if smoothing == 0.0:
            self.criterion = torch.nn.CrossEntropyLoss(ignore_index=pad)

    def loss(self, src, tgt):
        scores = self.model(src)
        if self.smoothing == 0.0:
            return self.criterion(scores.flatten(0, 1), tgt.flatten())
        log_probs = F.log_softmax(scores, dim=-1)
        value, _nll = self.criterion(log_probs, tgt, self.smoothing, pad_id=self.pad)
        return value
