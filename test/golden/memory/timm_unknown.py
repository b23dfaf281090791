# tpf: target=h100
"""A timm name outside the built-in table: the estimate is unknown (never guessed) and names the close ones."""
import timm
import torch

model = timm.create_model("convnext_bse", pretrained=False).cuda()
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
images = torch.randn(64, 3, 224, 224, device="cuda")
loss = model(images).logsumexp(-1).mean()
loss.backward()
optimizer.step()
