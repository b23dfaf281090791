# Rules that read another module's model: the softmax at the end of
# net.Classifier's forward (TPF006), the undivided loss net.LM and
# net.calc_loss return inside micro-steps (TPF004); silent for net.Scores
# and for the loss net.mean_loss divides.
import torch
import torch.nn as nn

import net
from net import LM, calc_loss, mean_loss


def train_classifier(model, loader, epochs):
    criterion = nn.CrossEntropyLoss()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for epoch in range(epochs):
        for x, y in loader:
            out = model(x)
            loss = criterion(out, y)  # TPF006: net.Classifier.forward ends in softmax
            opt.zero_grad()
            loss.backward()
            opt.step()


def train_scores(loader, epochs):
    model = net.Scores()
    criterion = nn.CrossEntropyLoss()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for epoch in range(epochs):
        for x, y in loader:
            loss = criterion(model(x), y)  # silent: raw scores
            opt.zero_grad()
            loss.backward()
            opt.step()


def train_lm(loader, accum):
    model = LM(100)
    opt = torch.optim.Adam(model.parameters(), weight_decay=0.01)
    batches = iter(loader)
    for step in range(1000):
        for micro in range(accum):
            x, y = next(batches)
            logits, loss = model(x, y)
            loss.backward()  # TPF004: LM.forward's loss is the batch mean
        opt.step()
        opt.zero_grad()


def train_helpers(loader, accum):
    model = net.Scores()
    opt = torch.optim.Adam(model.parameters(), weight_decay=0.01)
    batches = iter(loader)
    for step in range(1000):
        for micro in range(accum):
            x, y = next(batches)
            mean_loss(model(x), y, accum).backward()  # silent: divided in net.py
        opt.step()
        opt.zero_grad()


def train_raw_helper(loader, accum):
    model = net.Scores()
    opt = torch.optim.Adam(model.parameters(), weight_decay=0.01)
    batches = iter(loader)
    for step in range(1000):
        for micro in range(accum):
            x, y = next(batches)
            calc_loss(model(x), y).backward()  # TPF004: net.calc_loss does not divide
        opt.step()
        opt.zero_grad()


if __name__ == "__main__":
    torch.manual_seed(0)
    train_classifier(net.Classifier().cuda(), [], 10)
    train_scores([], 10)
    train_lm([], 4)
    train_helpers([], 4)
    train_raw_helper([], 4)
