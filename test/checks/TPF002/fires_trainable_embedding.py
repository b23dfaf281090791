# TPF002 must fire: `freeze=False` leaves the embedding trainable, so its
# lookups record a graph in this loop that never calls backward.
import torch


def lookup(vectors, index_batches):
    table = torch.nn.Embedding.from_pretrained(torch.as_tensor(vectors), freeze=False)
    table.eval()
    norms = []
    for ids in index_batches:
        norms.append(table(ids).norm(dim=-1).mean().item())  # expect: TPF002
    print(sum(norms) / max(len(norms), 1))


if __name__ == "__main__":
    lookup([[0.0, 1.0]], [])
