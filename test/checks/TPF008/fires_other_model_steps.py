# TPF008 still fires when the optimizer a helper steps is the evaluated
# model's own: the critic is evaluated inside the loop and then trained by
# the helper without `train()`.
import torch
from torch import nn


class Critic(nn.Module):
    def __init__(self):
        super().__init__()
        self.v = nn.Sequential(nn.Linear(5, 40), nn.BatchNorm1d(40), nn.Linear(40, 1))

    def forward(self, x):
        return self.v(x)


def regress(critic, xs, ys, critic_opt):
    critic_opt.zero_grad()
    nn.functional.smooth_l1_loss(critic(xs), ys).backward()
    critic_opt.step()


def main(batches, probe):
    critic = Critic()
    critic_opt = torch.optim.RMSprop(critic.parameters(), lr=5e-4)
    critic.train()
    for xs, ys in batches:
        regress(critic, xs, ys, critic_opt)
        critic.eval()  # expect: TPF008
        with torch.no_grad():
            print(float(critic(probe).mean()))
