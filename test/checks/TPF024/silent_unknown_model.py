# tpf: target=t4
# case: the model comes from a project module the analyzer cannot see: unknown, never called tight
import torch
from torch.utils.data import DataLoader

from mylab.models import build_model
from mylab.data import TokenDataset

torch.manual_seed(0)
model = build_model("huge").cuda()
opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
loader = DataLoader(TokenDataset("train"), batch_size=64, num_workers=8, pin_memory=True)
for batch in loader:
    batch = batch.cuda()
    loss = model(batch).mean()
    loss.backward()
    opt.step()
    opt.zero_grad()
