# TPF007 fires: the item assignment comes after the loss (it only prepares
# the boxes for decoding), so BCELoss still gets the convolution's logits.
import torch
import torch.nn as nn

torch.manual_seed(0)


class Head(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(8, 6, 1)
        self.bce = nn.BCELoss()

    # case: sigmoid written into the output only after the loss is taken
    def forward(self, x, target):
        out = self.conv(x).permute(0, 2, 3, 1)
        loss = self.bce(out[..., 4], target[..., 4])  # expect: TPF007
        out[..., :2] = torch.sigmoid(out[..., :2])
        return loss, out


if __name__ == "__main__":
    head = Head()
    opt = torch.optim.SGD(head.parameters(), lr=0.01)
    for step in range(3):
        loss, _ = head(torch.randn(2, 8, 4, 4), torch.rand(2, 4, 4, 6))
        opt.zero_grad()
        loss.backward()
        opt.step()
