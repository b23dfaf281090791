# tpf: target=a100-80gb
# case: resnet50 at batch 64 in bf16 autocast on an A100 80GB fits
import torch
import torch.nn as nn
import torchvision
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
net = torchvision.models.resnet50().cuda()
crit = nn.CrossEntropyLoss()
sgd = torch.optim.SGD(net.parameters(), lr=0.1, momentum=0.9)
ds = TensorDataset(torch.randn(256, 3, 224, 224), torch.randint(0, 1000, (256,)))
loader = DataLoader(ds, batch_size=64, shuffle=True, num_workers=8, pin_memory=True)
for x, y in loader:
    x, y = x.cuda(non_blocking=True), y.cuda(non_blocking=True)
    with torch.autocast("cuda", dtype=torch.bfloat16):
        loss = crit(net(x), y)
    sgd.zero_grad(set_to_none=True)
    loss.backward()
    sgd.step()
