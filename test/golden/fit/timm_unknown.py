"""A model from timm: not in the zoo, so the estimate is unknown (never guessed)."""
import timm
import torch

model = timm.create_model("convnext_base", pretrained=False).cuda()
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
images = torch.randn(64, 3, 224, 224, device="cuda")
loss = model(images).logsumexp(-1).mean()
loss.backward()
optimizer.step()
