# TPF006 must fire: the probe's last layer is a Softmax, and the probe is
# moved to the device before it is called.
import torch
from torch.nn import CrossEntropyLoss, LazyLinear, Sequential, Softmax

torch.manual_seed(0)
device = "cuda" if torch.cuda.is_available() else "cpu"
probe = Sequential(LazyLinear(10), Softmax(-1)).to(device)  # expect: TPF006
criterion = CrossEntropyLoss()
optimizer = torch.optim.Adam(probe.parameters(), lr=1e-3)
for feats, labels in feature_batches:
    optimizer.zero_grad()
    loss = criterion(probe(feats.to(device)), labels.to(device))
    loss.backward()
    optimizer.step()
