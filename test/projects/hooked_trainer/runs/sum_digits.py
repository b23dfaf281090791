# Trains toolkit's DigitMixer with toolkit's Engine: its loop, its loader of
# Settings.batch_size 48. Two hooks score held-out data through loaders of
# their own under no_grad: a probe of 500 before each step (between the
# engine's draw and its backward) and a report of 250 after it. Neither
# loader's batches reach a backward, so the run's batch stays the engine's.
import torch
from torch.utils.data import DataLoader, Dataset

from toolkit.engine import Engine
from toolkit.nets import DigitMixer


class DigitSums(Dataset):
    def __init__(self, n, n_digits=8, seed=0):
        g = torch.Generator().manual_seed(seed)
        self.x = torch.randint(0, 10, (n, n_digits), generator=g)

    def __len__(self):
        return self.x.shape[0]

    def __getitem__(self, i):
        x = self.x[i]
        return x, x.sum()


@torch.no_grad()
def accuracy(model, data, chunk):
    was_training = model.training
    model.eval()
    hits = 0
    for xb, yb in DataLoader(data, batch_size=chunk):
        hits += (model(xb).argmax(-1) == yb).sum().item()
    model.train(was_training)
    return hits / len(data)


if __name__ == "__main__":
    train_set, held_out = DigitSums(20000), DigitSums(2000, seed=1)
    engine = Engine(DigitMixer(), train_set)

    @engine.on("before_step")
    def probe(eng):
        if eng.step % 1000 == 0:
            print("before", eng.step, accuracy(eng.model, held_out, 500))

    @engine.on("after_step")
    def report(eng):
        if eng.step == 1 or eng.step % 200 == 0:
            with torch.no_grad():
                eng.model.eval()
                score = accuracy(eng.model, held_out, 250)
                eng.model.train()
            print(eng.step, eng.loss.item(), score)

    engine.fit()
