# TPF012 dataloader_without_workers: a pytest suite trains a few steps on
# CUDA to check a feature; it is no training script, so no tuning notes.
import pytest
import torch
import torch.nn.functional as F
from torch.utils.data import DataLoader


class TestAdapterTraining:
    def get_loader(self, dataset):
        return DataLoader(dataset, batch_size=4, shuffle=False)

    # case: a test's loader, without workers or pinned memory
    @pytest.mark.skipif(not torch.cuda.is_available(), reason="needs CUDA")
    def test_loss_goes_down(self, model, dataset):
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        losses = []
        for x, y in self.get_loader(dataset):
            opt.zero_grad()
            loss = F.mse_loss(model(x.cuda()), y.cuda())
            loss.backward()
            opt.step()
            losses.append(loss.item())
        assert losses[-1] < losses[0]
