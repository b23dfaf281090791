"""The network is whatever `_target_` the config names, built with hydra.utils.instantiate;
its nested `norm` is instantiated first and passed in."""
import hydra
import torch
from hydra.utils import instantiate


@hydra.main(config_path="conf", config_name="targets", version_base=None)
def go(cfg):
    torch.manual_seed(0)
    net = instantiate(cfg.net).cuda()
    opt = torch.optim.Adam(net.parameters())
    for _ in range(10):
        net(torch.randn(cfg.batch, cfg.net.width, device="cuda")).pow(2).mean().backward()
        opt.step()
        opt.zero_grad()


if __name__ == "__main__":
    go()
