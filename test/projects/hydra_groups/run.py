"""A hydra entry point: the model comes from a config group, the batch from the data group
overridden by the primary's own `data.batch_size`, and the command line picks the group's option
and replaces values (`model=conv_wide data.batch_size=256`)."""
import hydra
import torch
import torch.nn as nn
import torch.nn.functional as F
from omegaconf import DictConfig


class ConvNet(nn.Module):
    def __init__(self, channels, hidden, classes, image_size):
        super().__init__()
        layers, cin = [], 3
        for c in channels:
            layers += [nn.Conv2d(cin, c, 3, padding=1), nn.BatchNorm2d(c), nn.ReLU(), nn.MaxPool2d(2)]
            cin = c
        self.features = nn.Sequential(*layers)
        side = image_size // 2 ** len(channels)
        self.head = nn.Sequential(nn.Flatten(), nn.Linear(cin * side * side, hidden), nn.ReLU(), nn.Linear(hidden, classes))

    def forward(self, x):
        return self.head(self.features(x))


@hydra.main(version_base=None, config_path="conf", config_name="train")
def train(cfg: DictConfig) -> None:
    net = ConvNet(**cfg.model, image_size=cfg.data.image_size).cuda()
    opt = torch.optim.AdamW(net.parameters(), lr=cfg.optim.lr, weight_decay=cfg.optim.weight_decay)
    side = cfg.data.image_size
    for epoch in range(cfg.epochs):
        for _ in range(500):
            x = torch.randn(cfg.data.batch_size, 3, side, side, device="cuda")
            y = torch.randint(0, cfg.model.classes, (cfg.data.batch_size,), device="cuda")
            loss = F.cross_entropy(net(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()


if __name__ == "__main__":
    train()
