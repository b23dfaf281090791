# Hang (issue 20, review 20: learnables/learn2learn learn2learn/nn/metaoptnet.py): a
# @staticmethod that returns its argument, called as `self.rescale(data)` in __init__,
# bound the receiver to its first parameter, so `self.data = data` stored the module in
# itself; the object graph's parent chain became a cycle and TPF002's frozen() walked it
# forever. Now a staticmethod gets no receiver and no object is its own ancestor.
import torch


class Scaler(torch.nn.Module):
    def __init__(self, data):
        super().__init__()
        data = self.rescale(data)
        self.data = data

    @staticmethod
    def rescale(t, eps=1e-6):
        return t


if __name__ == "__main__":
    for a in [1, 2]:
        m = Scaler(a)
        out = m(a)
