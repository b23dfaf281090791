# A forward that turns grad mode off for its first stage only: the head
# after the `with` records a graph, so an evaluation loop still needs no_grad.
import torch
import torch.nn as nn

torch.manual_seed(0)


class FrozenStemModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Linear(16, 32)
        self.head = nn.Linear(32, 4)

    def forward(self, x):
        with torch.no_grad():
            h = self.stem(x).relu()
        return self.head(h)


model = FrozenStemModel().cuda()
loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(torch.randn(64, 16)), batch_size=8,
                                     num_workers=2, pin_memory=True)
model.eval()
total = 0.0
for (x,) in loader:
    total += model(x.cuda()).logsumexp(1).sum().item()  # expect: TPF002
print(total)
