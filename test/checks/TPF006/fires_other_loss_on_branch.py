# TPF006 must fire: the same conditional CrossEntropyLoss attribute, but the
# softmax branch calls it with (input, target) as its forward takes them,
# by position or by name: that call is the CrossEntropyLoss.
import torch
import torch.nn.functional as F


class PlainTrainer:
    def __init__(self, model, sharpen):
        self.model = model
        self.sharpen = sharpen
        self.criterion = torch.nn.CrossEntropyLoss()

    def loss(self, src, tgt):
        scores = self.model(src)
        if self.sharpen:
            probs = F.softmax(scores, dim=-1)  # expect: TPF006
            return self.criterion(probs, tgt)
        return self.criterion(input=F.softmax(scores, dim=1), target=tgt)  # expect: TPF006
