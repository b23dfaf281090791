# TPF018 validation_in_train_mode: the evaluation loop is two helpers deep,
# and the model reaches it inside an object (`state.model`) or by name.
import torch
import torch.nn.functional as F
from transformers import VisionEncoderDecoderModel


def predict(model, loader):
    out = []
    with torch.no_grad():
        for batch in loader:
            ids = model.generate(batch["pixel_values"], max_new_tokens=32)
            out.extend(ids.tolist())
    return out


def validate(state):
    preds = predict(state.model, state.val_loader)
    return len(preds)


# case: generation under no_grad, reached through validate(state) -> predict(state.model, ...)
def train(state, epochs):
    model = state.model
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    model.train()
    for epoch in range(epochs):
        for batch in state.train_loader:
            loss = model(pixel_values=batch["pixel_values"], labels=batch["labels"]).loss
            loss.backward()
            opt.step()
            opt.zero_grad()
        print(validate(state))  # expect: TPF018


def score(model, loader):
    total = 0.0
    with torch.no_grad():
        for x, y in loader:
            total += F.cross_entropy(model(x), y).item()
    return total


def evaluate(model, loader):
    return score(model, loader) / len(loader)


# case: a helper that only forwards the model to the looping helper
def fit(model, train_loader, val_loader, opt):
    for epoch in range(10):
        model.train()
        for x, y in train_loader:
            opt.zero_grad()
            F.cross_entropy(model(x), y).backward()
            opt.step()
        print(evaluate(model, val_loader))  # expect: TPF018


def run(args):
    state = args
    state.model = VisionEncoderDecoderModel.from_pretrained("microsoft/trocr-base-handwritten")
    train(state, 3)
