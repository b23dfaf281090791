# TPF001 must stay silent: the stored losses belong to one optimizer step.
# Each batch is split into micro-batches whose backward runs at once; the
# list (or the total) is created fresh for that step and read after the
# step, so it holds one step's graph nodes and never grows with the run.
import torch
import torch.nn.functional as F


def fit_in_chunks(model, opt, loader, pieces):
    for images, labels in loader:
        opt.zero_grad()
        chunk_losses = []
        for xs, ys in zip(images.chunk(pieces), labels.chunk(pieces)):
            piece = F.cross_entropy(model(xs), ys) / pieces
            piece.backward()
            chunk_losses.append(piece)
        opt.step()
        print(torch.stack(chunk_losses).sum().item())


class GanTrainer:
    def __init__(self, gen, disc, d_opt, accumulate):
        self.gen, self.disc, self.d_opt = gen, disc, d_opt
        self.accumulate = accumulate

    def train_step(self, sample_batch):
        # one call, one discriminator step
        total_d = torch.zeros([])
        self.d_opt.zero_grad()
        for _ in range(self.accumulate):
            real = sample_batch()
            fake = self.gen(torch.randn(real.shape[0], 128)).detach()
            d_loss = F.softplus(self.disc(fake)).mean() + F.softplus(-self.disc(real)).mean()
            (d_loss / self.accumulate).backward()
            total_d += d_loss
        self.d_opt.step()
        self.last_d = total_d.item() / self.accumulate
