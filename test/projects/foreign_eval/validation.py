# The validation helper evals only the models it is given, and logs to a writer.
import torch


def validate(gen, loader, writer, step):
    gen.eval()
    total = 0.0
    with torch.no_grad():
        for x, y in loader:
            total += (gen(x) - y).abs().mean().item()
    writer.add_scalar("val", total, step)
    return total
