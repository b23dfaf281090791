# TPF002 inference_without_no_grad: Lightning runs validation under no_grad itself.
import lightning as L
import torch
import torch.nn.functional as F


class LitClassifier(L.LightningModule):
    def __init__(self, net):
        super().__init__()
        self.net = net

    def training_step(self, batch, batch_idx):
        x, y = batch
        return F.cross_entropy(self.net(x), y)

    # case: validation_step has no loop of its own; the trainer disables grad
    def validation_step(self, batch, batch_idx):
        x, y = batch
        acc = (self.net(x).argmax(1) == y).float().mean()
        self.log("val_acc", acc)

    # case: a test-time-augmentation loop inside a LightningModule hook
    def predict_step(self, batch, batch_idx):
        views = [batch, batch.flip(-1)]
        outs = []
        for v in views:
            outs.append(self.net(v.to(self.device)).softmax(-1))
        return torch.stack(outs).mean(0)

    def configure_optimizers(self):
        return torch.optim.Adam(self.parameters(), lr=1e-3)
