# TPF009 device_sync_in_inner_loop: host syncs per element inside the
# training step, and synchronize every step.
import torch
import torch.nn.functional as F
from tqdm import tqdm

torch.manual_seed(0)


# case: per-sample accuracy with .item() inside the step loop
def train(model, loader, optimizer):
    correct = 0
    for x, y in loader:
        optimizer.zero_grad()
        logits = model(x)
        F.cross_entropy(logits, y).backward()
        optimizer.step()
        preds = logits.argmax(1)
        for i in range(len(y)):
            correct += int(preds[i].item() == y[i].item())  # expect: TPF009


# case: per-token .tolist() of each row inside a tqdm loop
def fit(model, batches, opt, vocab):
    for batch in tqdm(batches):
        opt.zero_grad()
        out = model(batch)
        out.loss.backward()
        opt.step()
        for row in out.logits.argmax(-1):
            words = [vocab[t] for t in row.tolist()]  # expect: TPF009
            print(" ".join(words))


# case: torch.cuda.synchronize() on every step
def run(model, loader, optimizer, args):
    for step, (inputs, targets) in enumerate(loader):
        optimizer.zero_grad(set_to_none=True)
        F.mse_loss(model(inputs), targets).backward()
        optimizer.step()
        torch.cuda.synchronize()  # expect: TPF009


# case: per-class losses moved to the CPU one by one
def per_class(model, loader, optimizer, n_classes):
    for x, y in loader:
        optimizer.zero_grad()
        losses = F.cross_entropy(model(x), y, reduction="none")
        losses.mean().backward()
        optimizer.step()
        for c in range(n_classes):
            class_loss = losses[y == c].mean().cpu()  # expect: TPF009
            print(c, class_loss)


if __name__ == "__main__":
    import sys
    sys.exit(0)
