# tpf: facts=resolve,loops,summaries
# Resolution across methods (self.x set in __init__, read in forward),
# module constants folded, recursion in the call graph.
import torch.nn as nn

HIDDEN = 64
LAYERS = HIDDEN // 16


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.blocks = nn.ModuleList([nn.Linear(HIDDEN, HIDDEN) for _ in range(LAYERS)])
        self.head = nn.Linear(HIDDEN * 2, 10)

    def forward(self, x):
        for b in self.blocks:
            for _ in range(2):
                x = b(x)
        return self.head(x)


def depth(tree):
    if not tree:
        return 0
    return 1 + max(depth(c) for c in tree)


net = Net()
