# TPF017 still fires when the unscale_ is under a different flag than the
# scaled backward, or under the opposite test of the same one: some run that
# scaled clips before unscaling.
import torch
from torch.cuda.amp import GradScaler, autocast


class Trainer:
    def __init__(self, model, optimizer, loader, fp16=True, clip_first=False):
        self.model, self.optimizer, self.loader = model, optimizer, loader
        self.scaler = GradScaler() if fp16 else None
        self.clip_first = clip_first

    # case: the unscale_ under another flag
    def train_epoch(self):
        for x in self.loader:
            with autocast():
                loss = self.model(x.cuda()).mean()
            if self.scaler:
                self.scaler.scale(loss).backward()
            else:
                loss.backward()
            if not self.clip_first:
                self.scaler.unscale_(self.optimizer)
            torch.nn.utils.clip_grad_norm_(self.model.parameters(), 1.0)  # expect: TPF017
            self.scaler.step(self.optimizer)
            self.scaler.update()
            self.optimizer.zero_grad()

    # case: the unscale_ under the opposite test of the scaler
    def train_inverted(self):
        for x in self.loader:
            with autocast():
                loss = self.model(x.cuda()).mean()
            if self.scaler is not None:
                self.scaler.scale(loss).backward()
            if self.scaler is None:
                self.scaler.unscale_(self.optimizer)
            torch.nn.utils.clip_grad_value_(self.model.parameters(), 0.5)  # expect: TPF017
            self.scaler.step(self.optimizer)
            self.scaler.update()
            self.optimizer.zero_grad()


# case: a per-step test of the step count guards the unscale_
def train(model, optimizer, loader, scaler):
    for i, x in enumerate(loader):
        with autocast():
            loss = model(x.cuda()).mean()
        scaler.scale(loss).backward()
        if i % 2 == 0:
            scaler.unscale_(optimizer)
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)  # expect: TPF017
        scaler.step(optimizer)
        scaler.update()
        optimizer.zero_grad()


# case: a flag argument guards the backward, its negation the unscale_
def train_flag(model, optimizer, loader, scaler, use_amp):
    for x in loader:
        with autocast(enabled=use_amp):
            loss = model(x.cuda()).mean()
        if use_amp:
            scaler.scale(loss).backward()
        if not use_amp:
            scaler.unscale_(optimizer)
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)  # expect: TPF017
        scaler.step(optimizer)
        scaler.update()
        optimizer.zero_grad()
