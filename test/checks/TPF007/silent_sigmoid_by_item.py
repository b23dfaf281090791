# TPF007 silent: a detection head makes its box and objectness channels
# probabilities by item assignment (`out[..., idx] = torch.sigmoid(...)`),
# then takes BCELoss on those channels: they are probabilities, not the
# convolution's logits.
import torch
import torch.nn as nn

torch.manual_seed(0)


class Head(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(8, 6, 1)
        self.bce = nn.BCELoss(reduction="sum")

    # case: channels picked by a list, then read by slices
    def forward(self, x, target):
        out = self.conv(x).permute(0, 2, 3, 1)
        out[..., [0, 1, 4, 5]] = torch.sigmoid(out[..., [0, 1, 4, 5]])
        loss_xy = self.bce(out[..., :2], target[..., :2])
        loss_obj = self.bce(out[..., 4], target[..., 4])
        return loss_xy + loss_obj


if __name__ == "__main__":
    head = Head()
    opt = torch.optim.SGD(head.parameters(), lr=0.01)
    for step in range(3):
        loss = head(torch.randn(2, 8, 4, 4), torch.rand(2, 4, 4, 6))
        opt.zero_grad()
        loss.backward()
        opt.step()
