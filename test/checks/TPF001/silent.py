# TPF001 loss_appended_with_graph: stored values that keep no graph, or whose graph is still needed.
import torch
import torch.nn as nn
import torch.nn.functional as F


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.ModuleList([nn.Linear(64, 64) for _ in range(4)])
        self.head = nn.Linear(64, 10)

    # case: a forward that collects per-layer features for the caller's loss
    def forward(self, x):
        feats = []
        for layer in self.layers:
            x = layer(x)
            feats.append(x)
        return self.head(x), feats


# case: `.item()` and `.detach()` before storing
def train(model, loader, optimizer, criterion):
    losses, outputs = [], []
    running = 0.0
    for x, y in loader:
        optimizer.zero_grad()
        out = model(x)
        loss = criterion(out, y)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
        outputs.append(out.detach().cpu())
        running += loss.item()
    return losses, outputs, running


# case: values computed under no_grad
def evaluate(loader):
    model = Net()
    preds = []
    with torch.no_grad():
        for x, _ in loader:
            logits, _ = model(x)
            preds.append(logits)
    return torch.cat(preds)


# case: a container created fresh each iteration
def train_fresh(model, loader, optimizer):
    for x, y in loader:
        step_losses = []
        optimizer.zero_grad()
        out = model(x)
        step_losses.append(F.mse_loss(out, y))
        step_losses.append(out.pow(2).mean())
        sum(step_losses).backward()
        optimizer.step()


# case: chunked losses stored, then summed and backwarded after the loop
def train_chunked(model, batch, optimizer, n_chunks):
    optimizer.zero_grad()
    chunk_losses = []
    for xs, ys in zip(batch[0].chunk(n_chunks), batch[1].chunk(n_chunks)):
        chunk_losses.append(F.cross_entropy(model(xs), ys))
    torch.stack(chunk_losses).mean().backward()
    optimizer.step()


# case: a pipeline schedule keeps micro-batch outputs for its backward pass
def pipeline_step(stage, micro_batches, grads_from_next):
    outputs = []
    for mb in micro_batches:
        outputs.append(stage(mb))
    for out, g in zip(reversed(outputs), grads_from_next):
        out.backward(g)


# case: a loss accumulated over micro-batches and backwarded once
def accumulate_then_backward(model, micro_batches, optimizer):
    total = 0
    for x, y in micro_batches:
        total = total + F.cross_entropy(model(x), y)
    total.backward()
    optimizer.step()
    optimizer.zero_grad()


# case: parameters collected into a list (leaves, no graph)
def build_params(sizes):
    params = []
    for n in sizes:
        params.append(nn.Parameter(torch.randn(n, requires_grad=True)))
    return nn.ParameterList(params)


# case: a preallocated tensor written in place keeps values, not graphs
def fill_buffer(model, loader, n, dim):
    buf = torch.zeros(n, dim)
    model.eval()
    with torch.inference_mode():
        for i, (x, _) in enumerate(loader):
            buf[i] = model(x).mean(0)
    return buf


# case: a dict entry overwritten each step keeps one graph, not one per step
def train_last(model, loader, optimizer, criterion):
    last = {}
    for x, y in loader:
        optimizer.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
        last["loss"] = loss
    return last["loss"].item()


# case: Lightning hooks store step outputs without a loop of their own
class LitModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Linear(8, 2)
        self.val_outputs = []

    def validation_step(self, batch, batch_idx):
        x, y = batch
        loss = F.cross_entropy(self.net(x), y)
        self.val_outputs.append(loss)
        return loss


# case: tokenizer outputs kept in a list are no graphs
def tokenize_all(texts):
    from transformers import AutoTokenizer
    tok = AutoTokenizer.from_pretrained("bert-base-uncased")
    encodings = []
    for t in texts:
        encodings.append(tok(t, return_tensors="pt"))
    print(len(encodings))


# case: losses summed over a window and backwarded under the accumulation guard
def train_window(model, loader, optimizer, window):
    window_loss = 0
    for i, (x, y) in enumerate(loader):
        window_loss += F.cross_entropy(model(x), y) / window
        if (i + 1) % window == 0:
            window_loss.backward()
            optimizer.step()
            optimizer.zero_grad()
            window_loss = 0
