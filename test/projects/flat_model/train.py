import torch
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

from config import TrainConfig
from model import TinyLM
import utils

cfg = TrainConfig()
model = TinyLM(cfg)
opt = torch.optim.AdamW(model.parameters(), lr=cfg.lr)
data = TensorDataset(torch.randint(0, cfg.vocab, (512, 64)), torch.randint(0, cfg.vocab, (512, 64)))
loader = DataLoader(data, batch_size=cfg.batch_size, shuffle=True)

for epoch in range(3):
    model.train()
    for x, y in loader:
        logits = model(x)
        loss = F.cross_entropy(logits.flatten(0, 1), y.flatten())
        utils.drop_gradients(model)
        loss.backward()
        opt.step()
    model.eval()
    print(utils.evaluate(model, loader))
