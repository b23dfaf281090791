# Softmax probabilities into NLLLoss, with every layer and function
# imported by name. The fix turns softmax into log_softmax, spelled through
# the module alias the file has (`from torch import nn`).
from torch import manual_seed, nn, optim
from torch.nn import Sequential, Linear, ReLU, Softmax
from torch.nn.functional import softmax, nll_loss

manual_seed(0)
classifier = Sequential(Linear(32, 64), ReLU(), Linear(64, 10), Softmax(dim=-1))  # expect: TPF006
opt = optim.AdamW(classifier.parameters())
nll = nn.NLLLoss()
for images, digits in loader:
    opt.zero_grad()
    loss = nll(classifier(images), digits)
    hidden = classifier[0](images)[:, :10]
    aux = nll_loss(softmax(hidden, dim=1), digits)  # expect: TPF006
    (loss + aux).backward()
    opt.step()
