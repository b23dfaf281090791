# TPF006 must stay silent: softmax where it belongs.
import torch
import torch.nn as nn
import torch.nn.functional as F


# case: LogSoftmax + NLLLoss is the correct pair
class Tagger(nn.Module):
    def __init__(self, vocab, n_tags):
        super().__init__()
        self.emb = nn.Embedding(vocab, 64)
        self.out = nn.Linear(64, n_tags)
        self.log_softmax = nn.LogSoftmax(dim=-1)

    def forward(self, tokens):
        return self.log_softmax(self.out(self.emb(tokens)))


def tagger_loss(tokens, tags):
    model = Tagger(1000, 17)
    return nn.NLLLoss()(model(tokens), tags) + F.nll_loss(F.log_softmax(model.out(model.emb(tokens)), -1), tags)


# case: attention softmax inside a block is not the output activation
class Attention(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.qkv = nn.Linear(d, 3 * d)
        self.proj = nn.Linear(d, d)

    def forward(self, x):
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        att = F.softmax(q @ k.transpose(-2, -1) / q.size(-1) ** 0.5, dim=-1)
        return self.proj(att @ v)


class Classifier(nn.Module):
    def __init__(self, d, n):
        super().__init__()
        self.attn = Attention(d)
        self.head = nn.Linear(d, n)

    def forward(self, x):
        return self.head(self.attn(x).mean(1))


def classifier_loss(x, y):
    return F.cross_entropy(Classifier(64, 3)(x), y)


# case: softmax only in eval mode
class EvalSoftmax(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(10, 3)

    def forward(self, x):
        logits = self.fc(x)
        if self.training:
            return logits
        return F.softmax(logits, dim=-1)


def eval_softmax_loss(x, y):
    return nn.CrossEntropyLoss()(EvalSoftmax()(x), y)


# case: softmax for metrics, the loss on the logits
def step_with_metrics(model, x, y):
    logits = model(x)
    probs = F.softmax(logits, dim=1)
    acc = (probs.argmax(dim=1) == y).float().mean()
    loss = F.cross_entropy(logits, y)
    return loss, acc


# case: distillation, softmax on the teacher's targets (second argument)
def distill_loss(student, teacher, x, T=2.0):
    with torch.no_grad():
        soft_targets = F.softmax(teacher(x) / T, dim=-1)
    logits = student(x)
    kd = F.kl_div(F.log_softmax(logits / T, dim=-1), soft_targets, reduction="batchmean")
    return kd + F.cross_entropy(logits, soft_targets)


# case: logits from a parameter: not known, so not flagged
def compute_loss(outputs, labels):
    return F.cross_entropy(outputs, labels)


# case: softmax on one path only
def maybe_softmax(model, x, y, use_probs):
    out = model(x)
    if use_probs:
        out = out.softmax(-1)
    return F.cross_entropy(out, y)
