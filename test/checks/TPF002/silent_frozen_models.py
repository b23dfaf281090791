# TPF002 must stay silent: every parameter of the model is frozen and its
# inputs are a loader's batches, so autograd records nothing even without
# no_grad (pretrained networks scored over test sets, a frozen embedding
# table looked up by index).
import torch
import torchvision


def score(make_loader, names):
    for name in names:
        model = getattr(torchvision.models, name)(weights="DEFAULT").cuda()
        model.eval()
        for _, p in model.named_parameters():
            p.requires_grad = False
        hits = 0
        for batch in make_loader(name):
            images = batch[0].cuda(non_blocking=True)
            hits += (model(images).argmax(1).cpu() == batch[1]).sum().item()
        print(name, hits)


def lookup(vectors, index_batches):
    table = torch.nn.Embedding.from_pretrained(torch.as_tensor(vectors))
    norms = []
    for ids in index_batches:
        norms.append(table(ids).norm(dim=-1).mean().item())
    print(sum(norms) / max(len(norms), 1))


if __name__ == "__main__":
    score(lambda name: [], ["resnet18"])
    lookup([[0.0, 1.0]], [])
