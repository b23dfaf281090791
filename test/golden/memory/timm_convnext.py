# tpf: target=h100
"""A model from timm by its registered name: memory/tables/timm_models.def's convnext_base (88,591,464 parameters)."""
import timm
import torch

model = timm.create_model("convnext_base", pretrained=False).cuda()
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
images = torch.randn(64, 3, 224, 224, device="cuda")
loss = model(images).logsumexp(-1).mean()
loss.backward()
optimizer.step()
