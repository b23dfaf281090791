# timm's ModelEma freezes every parameter of its copy (requires_grad_(False)):
# recalibrating the EMA copy records no graph (silent); recalibrating the
# trained model does (TPF002 at the call, line 26).
import torch
from timm.utils import ModelEma

import stats

torch.manual_seed(1)


def main(args, model, loader, optimizer):
    ema = None
    if args.ema:
        ema = ModelEma(model, decay=0.999)
    for _ in range(args.epochs):
        for images, labels in loader:
            loss = torch.nn.functional.cross_entropy(model(images.cuda()), labels.cuda())
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            if ema is not None:
                ema.update(model)
    if args.ema:
        stats.recalibrate(loader, ema.ema)
    stats.recalibrate(loader, model)


if __name__ == "__main__":
    main(None, None, [], None)
