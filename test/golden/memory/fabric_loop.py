# tpf: target=a10g
"""A Lightning Fabric loop, litgpt's shape: fabric.launch(main, ...) runs main
with the Fabric first; setup returns the module and optimizer; the weights
are bfloat16 themselves ("bf16-true"); fabric.backward is the backward."""
import lightning as L
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset


def main(fabric, batch_size, steps):
    with fabric.init_module(empty_init=fabric.world_size > 1):
        model = nn.Sequential(nn.Embedding(8000, 512), nn.Linear(512, 2048), nn.GELU(), nn.Linear(2048, 8000))
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-4)
    model, optimizer = fabric.setup(model, optimizer)
    data = TensorDataset(torch.randint(0, 8000, (1024, 257)))
    loader = fabric.setup_dataloaders(DataLoader(data, batch_size=batch_size, shuffle=True))
    for step, (tokens,) in enumerate(loader):
        if step >= steps:
            break
        logits = model(tokens[:, :-1])
        loss = F.cross_entropy(logits.reshape(-1, 8000), tokens[:, 1:].reshape(-1))
        fabric.backward(loss)
        optimizer.step()
        optimizer.zero_grad()
        if fabric.global_rank == 0:
            fabric.print(f"step {step} loss {loss.item():.3f}")


if __name__ == "__main__":
    fabric = L.Fabric(devices=1, precision="bf16-true")
    fabric.launch(main, 16, 100)
