"""A hydra task whose config has no defaults list, read by key (`cfg["width"]`)."""
import hydra
import torch
from torch import nn


@hydra.main(config_path="conf", config_name="flat.yaml", version_base="1.3")
def fit(cfg):
    torch.manual_seed(cfg.get("seed", 0))
    mlp = nn.Sequential(*[nn.Linear(cfg["width"], cfg["width"]) for _ in range(cfg.depth)]).cuda()
    opt = torch.optim.SGD(mlp.parameters(), lr=0.01, momentum=0.9)
    for _ in range(100):
        mlp(torch.randn(cfg.get("batch", 32), cfg["width"], device="cuda")).square().mean().backward()
        opt.step()
        opt.zero_grad()


if __name__ == "__main__":
    fit()
