import torch
import torch.nn.functional as F
from nets.blocks import NoisyUpsampler, Upsampler

torch.manual_seed(0)
plain = Upsampler(16, 2).cuda()
noisy = NoisyUpsampler(16, 2).cuda()
opt = torch.optim.Adam(list(plain.parameters()) + list(noisy.parameters()), lr=1e-4)
probes = [torch.randn(1, 1, 128).cuda() for _ in range(4)]
for step in range(1000):
    x = torch.randn(8, 1, 128).cuda()
    loss = F.l1_loss(plain(x)[..., ::2], x) + F.l1_loss(noisy(x)[..., ::2], x)
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 100 == 0:
        with torch.no_grad():
            for p in probes:
                # eval() would change nothing for `plain`; `noisy` drops activations
                torch.save((plain(p).cpu(), noisy(p).cpu()), f"probe_{step}.pt")
