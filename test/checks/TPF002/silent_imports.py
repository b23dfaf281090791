# TPF002 inference_without_no_grad: `torch` bound by two imports still resolves.
from contextlib import suppress

import torch
import torch.nn.parallel


# case: `import torch.nn.parallel` rebinds `torch`; inference_mode around an autocast loop
def validate(model, loader, use_amp):
    autocast = torch.autocast if use_amp else suppress
    model.eval()
    top1 = 0
    with torch.inference_mode():
        for step, (images, target) in enumerate(loader):
            images = images.to("cuda", non_blocking=True)
            with autocast():
                output = model(images)
            top1 += (output.argmax(-1) == target.cuda()).float().sum().item()
    return top1


if __name__ == "__main__":
    net = torch.nn.parallel.DataParallel(torch.nn.Linear(8, 2))
    print(validate(net, [], False))
