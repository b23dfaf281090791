# Losses imported by name. The fix swaps the loss for its sibling and
# writes it the way this file's imports reach it: `torch.nn.BCELoss`
# through `import torch`, since BCELoss was never imported by name. The
# functional loss imported under an alias of its own is left as it is.
import torch
from torch.nn import BCEWithLogitsLoss
from torch.nn.functional import binary_cross_entropy_with_logits as bce_logits

torch.manual_seed(0)
scorer = torch.nn.Linear(16, 1)
criterion = BCEWithLogitsLoss()
optimizer = torch.optim.Adam(scorer.parameters(), lr=3e-4)
for features, labels in loader:
    optimizer.zero_grad()
    probs = scorer(features).sigmoid()  # expect: TPF007
    criterion(probs, labels).backward()
    optimizer.step()

for features, labels in loader:
    optimizer.zero_grad()
    probs = torch.sigmoid(scorer(features))  # expect: TPF007
    bce_logits(probs, labels).backward()
    optimizer.step()
