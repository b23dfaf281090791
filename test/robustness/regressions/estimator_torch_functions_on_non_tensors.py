import torch
x = foo()
y = torch.flatten(x)
z = torch.transpose(x, 0, 1)
w = torch.squeeze(None)
q = torch.t()
for v in torch.unbind(3):
    pass
