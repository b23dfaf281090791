# TPF009 must stay silent: `for name in loss_dict: loss_dict[name]` reads a
# mapping by its own keys, a handful of loss terms per step for a running
# average, even when the dict comes back from a closure the optimizer runs.
import torch

torch.manual_seed(0)


class Trainer:
    def __init__(self, model, optimizer):
        self.model = model.cuda()
        self.optimizer = optimizer

    # case: the loss dict a closure returns through `optimizer.step(closure)`
    def train_epoch(self, loader):
        avg = {}
        for batch_idx, batch in enumerate(loader):
            def closure():
                out = self.model(batch.cuda())
                loss_dict = {"train_loss": out.mean(), "l1": out.abs().mean()}
                self.optimizer.zero_grad()
                loss_dict["train_loss"].backward()
                return loss_dict["train_loss"], loss_dict
            loss, loss_dict = self.optimizer.step(closure=closure)
            for name in loss_dict:
                loss_cpu = loss_dict[name].cpu().item()
                avg[name] = 0.99 * avg.get(name, loss_cpu) + 0.01 * loss_cpu
        return avg

    # case: a dict of terms from the model, read key by key
    def train_terms(self, loader):
        for batch in loader:
            loss, terms = self.model(batch.cuda())
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()
            for k in terms:
                print(k, terms[k].item())

    # case: keys read with their values written back as floats
    def train_floats(self, loader):
        for batch in loader:
            loss, stats = self.model(batch.cuda())
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()
            for key in stats:
                stats[key] = stats[key].mean().item()
            print(stats)

    # case: a dict of meters keyed like the stats
    def train_meters(self, loader, meters):
        for batch in loader:
            loss, stats = self.model(batch.cuda())
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()
            for key in stats:
                meters[key].append(stats[key].detach().mean().item())
