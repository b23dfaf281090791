# Multi-crop evaluation: the same nested comprehensions, but nothing
# backpropagates what they produce, and no no_grad is around them.
import torch
import torch.nn as nn

torch.manual_seed(0)

heads = nn.ModuleList([nn.Linear(12, 5) for _ in range(3)]).cuda()
crops = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(torch.randn(40, 2, 12), torch.randint(0, 5, (40,))),
                                    batch_size=4, num_workers=2, pin_memory=True)

heads.eval()
agree = 0
for views, target in crops:
    views, target = views.cuda(), target.cuda()
    logits = [[head(views[:, k]) for k in range(views.shape[1])] for head in heads]  # expect: TPF002
    votes = torch.stack([z.argmax(1) for per_head in logits for z in per_head])
    agree += (votes.mode(0).values == target).sum().item()
print(agree)
