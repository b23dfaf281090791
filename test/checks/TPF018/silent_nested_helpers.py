# TPF018 validation_in_train_mode: nested evaluation helpers that are fine:
# one of them sets eval mode, the caller does, or the model handed over is
# another one than the trained model.
import torch
import torch.nn.functional as F


def predict(model, loader):
    out = []
    with torch.no_grad():
        for batch in loader:
            out.extend(model.generate(batch["pixel_values"]).tolist())
    return out


def predict_eval(model, loader):
    model.eval()
    return predict(model, loader)


def validate(state):
    return len(predict_eval(state.model, state.val_loader))


# case: the inner helper calls eval() before the loop of the innermost one
def train(state, epochs):
    model = state.model
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    for epoch in range(epochs):
        model.train()
        for batch in state.train_loader:
            model(pixel_values=batch["pixel_values"], labels=batch["labels"]).loss.backward()
            opt.step()
            opt.zero_grad()
        print(validate(state))


def score(model, loader):
    total = 0.0
    with torch.no_grad():
        for x, y in loader:
            total += F.cross_entropy(model(x), y).item()
    return total


def evaluate(model, loader):
    return score(model, loader) / len(loader)


# case: eval() at the call site, before the helper chain
def fit(model, train_loader, val_loader, opt):
    for epoch in range(10):
        model.train()
        for x, y in train_loader:
            opt.zero_grad()
            F.cross_entropy(model(x), y).backward()
            opt.step()
        model.eval()
        print(evaluate(model, val_loader))


# case: the helper chain evaluates the teacher, not the trained student
def distill(student, teacher, train_loader, val_loader, opt):
    for epoch in range(10):
        student.train()
        for x, y in train_loader:
            opt.zero_grad()
            F.cross_entropy(student(x), y).backward()
            opt.step()
        print(evaluate(teacher, val_loader))


# case: generation in a loop over range (token by token) is not an evaluation loop
def decode(model, prompt, steps):
    with torch.no_grad():
        for _ in range(steps):
            prompt = model.generate(prompt)
    return prompt


def finetune(model, loader, opt):
    for epoch in range(3):
        model.train()
        for batch in loader:
            model(**batch).loss.backward()
            opt.step()
            opt.zero_grad()
        print(decode(model, loader.prompt, 8))
