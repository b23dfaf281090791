# TPF015 must stay silent: full-graph training steps once per epoch, and
# the plateau scheduler steps on the validation loss that the evaluation
# of that same iteration returns: once per epoch, as its patience expects.
import torch
import torch.nn.functional as F


class GCN(torch.nn.Module):
    def __init__(self, dim, classes):
        super().__init__()
        self.lin1 = torch.nn.Linear(dim, 64)
        self.lin2 = torch.nn.Linear(64, classes)

    def forward(self, adj, x):
        return self.lin2(adj @ torch.relu(self.lin1(adj @ x)))


def train_epoch(model, opt, adj, x, y, mask):
    model.train()
    opt.zero_grad()
    loss = F.cross_entropy(model(adj, x)[mask], y[mask])
    loss.backward()
    opt.step()
    return loss.item()


def evaluate(model, adj, x, y, mask):
    model.eval()
    with torch.no_grad():
        logits = model(adj, x)
        return F.cross_entropy(logits[mask], y[mask]).item(), (logits[mask].argmax(1) == y[mask]).float().mean().item()


def run(splits, adj, x, y, epochs=200):
    torch.manual_seed(0)
    for train_mask, val_mask in splits:
        model = GCN(x.size(1), int(y.max()) + 1).cuda()
        opt = torch.optim.Adam(model.parameters(), lr=0.01)
        sched = torch.optim.lr_scheduler.ReduceLROnPlateau(opt, mode="min", factor=0.5, patience=10)
        for epoch in range(epochs):
            train_epoch(model, opt, adj, x, y, train_mask)
            val_loss, val_acc = evaluate(model, adj, x, y, val_mask)
            sched.step(val_loss)
            print(epoch, val_acc)


if __name__ == "__main__":
    run([], None, None, None)
