# tpf: target=a10g
"""A LightningModule trained by Trainer.fit with bf16-mixed precision."""
import torch, torch.nn as nn, torch.nn.functional as F
import pytorch_lightning as pl
from torch.utils.data import DataLoader, TensorDataset

class Lit(pl.LightningModule):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(32, 256), nn.ReLU(), nn.Linear(256, 10))
    def training_step(self, batch, batch_idx):
        x, y = batch
        loss = F.cross_entropy(self.net(x), y)
        self.log("loss", loss)
        return loss
    def configure_optimizers(self):
        return torch.optim.Adam(self.parameters(), lr=1e-3)

dl = DataLoader(TensorDataset(torch.randn(1000, 32), torch.randint(0, 10, (1000,))), batch_size=64)
trainer = pl.Trainer(max_epochs=3, precision="bf16-mixed", accelerator="gpu", devices=1)
trainer.fit(Lit(), dl)
