# TPF017 must stay silent: the unscale_ runs under the same flag test as the
# scaled backward, so every run that scaled the loss unscales before the
# clip (and a run without a scaler has nothing scaled).
import torch
from torch.cuda.amp import GradScaler, autocast


class Trainer:
    def __init__(self, model, optimizer, loader, fp16=True, grad_norm=1.0):
        self.model, self.optimizer, self.loader = model, optimizer, loader
        self.scaler = GradScaler() if fp16 else None
        self.grad_norm = grad_norm

    # case: `if self.scaler:` around the scaled backward and around the unscale_
    def train_epoch(self):
        for x, y in self.loader:
            with autocast(enabled=self.scaler is not None):
                loss = torch.nn.functional.mse_loss(self.model(x.cuda()), y.cuda())
            if self.scaler:
                self.scaler.scale(loss).backward()
            else:
                loss.backward()
            if self.scaler:
                self.scaler.unscale_(self.optimizer)
            if self.grad_norm:
                torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.grad_norm)
            if self.scaler:
                self.scaler.step(self.optimizer)
                self.scaler.update()
            else:
                self.optimizer.step()
            self.optimizer.zero_grad()

    # case: `is not None` tests of the scaler, the step guarded too
    def train_guarded(self, step_every):
        for i, (x, y) in enumerate(self.loader):
            with autocast():
                loss = self.model(x.cuda()).mean()
            if self.scaler is not None:
                self.scaler.scale(loss).backward()
            else:
                loss.backward()
            if (i + 1) % step_every == 0:
                if self.scaler is not None:
                    self.scaler.unscale_(self.optimizer)
                torch.nn.utils.clip_grad_norm_(self.model.parameters(), 1.0)
                if self.scaler is not None:
                    self.scaler.step(self.optimizer)
                    self.scaler.update()
                else:
                    self.optimizer.step()
                self.optimizer.zero_grad()


# case: a flag argument tested twice, `if use_amp:` and `if not use_amp:` the other way round
def train(model, optimizer, loader, scaler, use_amp):
    for x in loader:
        with autocast(enabled=use_amp):
            loss = model(x.cuda()).mean()
        if use_amp:
            scaler.scale(loss).backward()
        if not use_amp:
            loss.backward()
        else:
            scaler.unscale_(optimizer)
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        if use_amp:
            scaler.step(optimizer)
            scaler.update()
        else:
            optimizer.step()
        optimizer.zero_grad()


# case: the flag is a global of the script
USE_AMP = True
scaler = GradScaler(enabled=USE_AMP)


def train_global(model, optimizer, loader):
    for x in loader:
        with autocast(enabled=USE_AMP):
            loss = model(x.cuda()).mean()
        if USE_AMP:
            scaler.scale(loss).backward()
            scaler.unscale_(optimizer)
        else:
            loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        scaler.step(optimizer)
        scaler.update()
        optimizer.zero_grad()
