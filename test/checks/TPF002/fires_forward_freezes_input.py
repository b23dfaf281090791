# TPF002 inference_without_no_grad: a model whose forward only switches
# requires_grad off (`requires_grad_(False)`) or makes constant tensors
# needs no autograd itself: its parameters still record a graph in the
# evaluation loop.
import torch
import torch.nn as nn


class Normalized(nn.Module):
    def __init__(self, net):
        super().__init__()
        self.net = net

    def forward(self, x):
        x = x.detach().requires_grad_(False)
        mean = torch.zeros(x.shape[1], device=x.device, requires_grad=False)
        return self.net(x - mean[None, :, None, None])


net = Normalized(nn.Sequential(nn.Conv2d(3, 8, 3), nn.Flatten(), nn.LazyLinear(10))).cuda()
images = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(torch.randn(64, 3, 8, 8)), batch_size=8)
net.eval()
top = []
# case: requires_grad_(False) and requires_grad=False keep the finding
for (batch,) in images:
    top.append(net(batch.cuda()).argmax(1).cpu())  # expect: TPF002
print(top)
