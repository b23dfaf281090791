# TPF001 must stay silent: the running loss of an accumulation window is
# reset inside the loop once the window's step is taken, so it holds at
# most one window's graphs; it does not grow with the run.
import torch


class Trainer:
    def fit(self, batches, accum):
        running = 0
        seen = 0
        for idx, (x, y) in enumerate(batches):
            loss = torch.nn.functional.cross_entropy(self.model(x), y)
            running += loss
            seen += 1
            (loss / accum).backward()
            if (idx + 1) % accum == 0:
                self.opt.step()
                self.opt.zero_grad(set_to_none=True)
                self.log(running.detach().item() / seen)
                running = 0
                seen = 0
