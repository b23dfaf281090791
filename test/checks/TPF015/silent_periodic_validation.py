# TPF015 must stay silent: a plateau schedule stepped with the score of a
# validation round that runs a few times per epoch, under a step-count
# guard inside the batch loop; its patience counts validation rounds.
import torch
from torch import optim


def fit(net, loader, val_loader, epochs, rounds_per_epoch=4):
    opt = optim.RMSprop(net.parameters(), lr=1e-5, weight_decay=1e-8)
    plateau = optim.lr_scheduler.ReduceLROnPlateau(opt, "max", patience=5)
    every = max(len(loader) // rounds_per_epoch, 1)
    global_step = 0
    for epoch in range(1, epochs + 1):
        net.train()
        for images, masks in loader:
            loss = torch.nn.functional.binary_cross_entropy_with_logits(net(images), masks)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            global_step += 1
            if global_step % every == 0:
                score = dice_on(net, val_loader)
                plateau.step(score)
