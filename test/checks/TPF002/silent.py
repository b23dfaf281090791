# TPF002 inference_without_no_grad: inference done right, and loops that need autograd.
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset


class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.blocks = nn.ModuleList([nn.Linear(32, 32) for _ in range(3)])
        self.out = nn.Linear(32, 4)

    # case: a model's forward looping over its blocks (the caller decides the grad mode)
    def forward(self, x):
        for block in self.blocks:
            x = x + block(x)
        return self.out(x)


# case: the decorator turns autograd off
@torch.no_grad()
def evaluate(model, loader, device):
    model.eval()
    correct = 0
    for x, y in loader:
        correct += (model(x.to(device)).argmax(1) == y.to(device)).sum().item()
    return correct


# case: inference_mode around the loop
def predict(model, loader):
    model.eval()
    preds = []
    with torch.inference_mode():
        for (x,) in loader:
            preds.append(model(x.cuda()).argmax(1).cpu())
    return torch.cat(preds)


# case: an adversarial attack: backward on the input on purpose
def fgsm_eval(model, loader, eps):
    model.eval()
    correct = 0
    for x, y in loader:
        x = x.cuda().requires_grad_(True)
        loss = F.cross_entropy(model(x), y.cuda())
        grad, = torch.autograd.grad(loss, x)
        x_adv = (x + eps * grad.sign()).detach()
        with torch.no_grad():
            correct += (model(x_adv).argmax(1) == y.cuda()).sum().item()
    return correct


# case: the training loop itself
def train_epoch(model, loader, optimizer):
    model.train()
    for x, y in loader:
        x, y = x.cuda(), y.cuda()
        optimizer.zero_grad()
        F.cross_entropy(model(x), y).backward()
        optimizer.step()


# case: every caller runs the helper under no_grad
def score(model, loader):
    model.eval()
    total = 0.0
    for x, y in loader:
        total += F.mse_loss(model(x.cuda()), y.cuda()).item()
    return total


def report(model, loader):
    with torch.no_grad():
        return score(model, loader)


# case: features extracted and returned: a caller may train on them
def extract(model, loader):
    model.eval()
    feats = []
    for x, _ in loader:
        feats.append(model(x.cuda()))
    return torch.cat(feats)


# case: a helper never called in this file (another file may call it under no_grad)
def evaluate_elsewhere(model, loader):
    model.eval()
    for x, y in loader:
        print(model(x.cuda()).argmax(1))


# case: training whose backward and step happen inside a scaler object handed the optimizer
def train_native_amp(model, loader, optimizer, loss_scaler, criterion):
    model.train()
    for x, y in loader:
        x, y = x.cuda(), y.cuda()
        with torch.autocast("cuda"):
            loss = criterion(model(x), y)
        optimizer.zero_grad()
        loss_scaler(loss, optimizer, clip_grad=1.0)


def main():
    torch.manual_seed(0)
    model = Classifier().cuda()
    data = TensorDataset(torch.randn(64, 32), torch.randn(64, 4))
    loader = DataLoader(data, batch_size=16, num_workers=2, pin_memory=True)
    opt = torch.optim.Adam(model.parameters())
    train_epoch(model, loader, opt)
    print(evaluate(model, loader, "cuda"), predict(model, loader), fgsm_eval(model, loader, 0.1))
    print(report(model, loader), extract(model, loader).shape)
    train_native_amp(model, loader, opt, lambda loss, o, clip_grad: loss.backward(), F.mse_loss)


if __name__ == "__main__":
    main()


# case: a tokenizer is no model; a callable builder object is no nn.Module
class Builder:
    def __call__(self, ctx, node):
        return (ctx, node)


build_item = Builder()


def build_items(ctx, items):
    built = [build_item(ctx, i) for i in items]
    return list(built)


def encode_all(prompts, items):
    from transformers import AutoTokenizer
    tokenizer = AutoTokenizer.from_pretrained("gpt2")
    lengths = []
    for p in prompts:
        lengths.append(len(tokenizer(p, return_tensors="pt").input_ids))
    return lengths, build_items(None, items)


print(encode_all(["a"], [1]))
