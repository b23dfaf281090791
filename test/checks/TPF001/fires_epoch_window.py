# TPF001 must fire: the container is fresh per epoch, not per step; the
# optimizer steps inside the batch loop, so the list keeps the graph nodes
# of every step of the epoch.
import torch.nn.functional as F


def run_epochs(model, opt, loader, epochs):
    for epoch in range(epochs):
        epoch_losses = []
        for x, y in loader:
            opt.zero_grad()
            loss = F.mse_loss(model(x), y)
            loss.backward()
            opt.step()
            epoch_losses.append(loss)  # expect: TPF001
        print(epoch, len(epoch_losses))


class Trainer:
    def micro_steps(self, batches):
        # local total, but returned: the caller decides how long it lives
        total = 0
        for x, y in batches:
            part = F.mse_loss(self.model(x), y)
            part.backward()
            total += part  # expect: TPF001
        self.opt.step()
        return total
