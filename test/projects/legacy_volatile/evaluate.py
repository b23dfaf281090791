# A torch-0.3 evaluation script: the README states PyTorch 0.3.1, so
# `Variable(x, volatile=True)` turns autograd off and TPF002 stays silent on
# the validation loop. The loop over plain Variables records a graph on any
# torch: TPF002 fires there.
import torch
import torch.nn as nn
from torch.autograd import Variable

torch.manual_seed(0)
net = nn.Sequential(nn.Linear(8, 8), nn.ReLU(), nn.Linear(8, 2))
loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(torch.randn(32, 8), torch.zeros(32).long()))


def validate(epoch):
    net.eval()
    correct = 0
    for data, target in loader:
        data, target = Variable(data.cuda(), volatile=True), Variable(target.cuda())
        correct += net(data).data.max(1)[1].eq(target.data).sum()
    print(epoch, correct)


def embed():
    net.eval()
    for data, _ in loader:
        print(net(Variable(data.cuda())).data.norm())


validate(0)
embed()
