# Linear probes on a frozen backbone's multi-crop features: the probes run
# in nested comprehensions over the crops, and the loss built from their
# outputs is backpropagated after the comprehensions end. Leaving a
# comprehension passes its loop's header, so the backward is still
# reachable from the forwards in it.
import torch
import torch.nn as nn

torch.manual_seed(0)


class Backbone(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(12, 12)

    def forward(self, crops):
        return [[self.proj(c) for c in views] for views in crops]


def probe_epoch(backbone, probe, opt, batches, train):
    probe.train(train)
    loss_fn = nn.CrossEntropyLoss()
    for crops, target in batches:
        crops, target = [[crops.cuda(), crops.flip(1).cuda()]], target.cuda()
        with torch.no_grad():
            feats = backbone(crops)
        scores = [[probe(f) for f in views] for views in feats]
        loss = sum(loss_fn(s, target) for views in scores for s in views)
        if train:
            opt.zero_grad()
            loss.backward()
            opt.step()


backbone, probe = Backbone().cuda(), nn.Linear(12, 5).cuda()
opt = torch.optim.SGD(probe.parameters(), lr=0.1)
batches = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(torch.randn(40, 12), torch.randint(0, 5, (40,))),
                                      batch_size=4, num_workers=2, pin_memory=True)
for epoch in range(3):
    probe_epoch(backbone, probe, opt, batches, True)
