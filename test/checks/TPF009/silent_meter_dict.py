# TPF009 must stay silent: the loop runs over a dict of meters the
# function builds, one per loss name the trainer declares: a handful of
# reads per step for the progress bar, not one per sample.
import torch

torch.manual_seed(0)


class Meter:
    def __init__(self):
        self.sum, self.count = 0.0, 0

    def update(self, value, n=1):
        self.sum += value * n
        self.count += n


class Trainer:
    loss_names = ("hm_loss", "wh_loss", "off_loss")

    def __init__(self, model_with_loss, optimizer):
        self.model_with_loss = model_with_loss.cuda()
        self.optimizer = optimizer

    def run_epoch(self, loader):
        meters = {name: Meter() for name in self.loss_names}
        for batch in loader:
            batch = {k: v.cuda(non_blocking=True) for k, v in batch.items()}
            loss, stats = self.model_with_loss(batch)
            self.optimizer.zero_grad()
            loss.mean().backward()
            self.optimizer.step()
            for name in meters:
                meters[name].update(stats[name].mean().item(), batch["input"].size(0))
        return {name: m.sum / max(m.count, 1) for name, m in meters.items()}


if __name__ == "__main__":
    Trainer(torch.nn.Identity(), None).run_epoch([])
