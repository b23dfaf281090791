# TPF008 asks whose parameters the step after an eval updates. Silent: a
# reward model fitted first (its own optimizer, in train mode) and then
# evaluated at the end of each policy iteration, while the steps that
# follow are the policy's, in a helper handed the policy's optimizer and a
# temperature optimizer over a tensor the script makes itself.
# fires_other_model_steps.py keeps the step of the evaluated model's own
# optimizer.
import torch
from torch import nn


class Scorer(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.layers = nn.Sequential(nn.Linear(width, 64), nn.Dropout(0.1), nn.Linear(64, 1))

    def forward(self, x):
        return self.layers(x)


class Policy(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.mu = nn.Linear(width, width)

    def forward(self, x):
        return torch.tanh(self.mu(x))


def fit_rewards(reward_model, reward_opt, labelled):
    reward_model.train()
    for x, y in labelled:
        reward_opt.zero_grad()
        nn.functional.mse_loss(reward_model(x).squeeze(1), y).backward()
        reward_opt.step()


def policy_update(policy, states, rewards, log_temp, policy_opt, temp_opt):
    policy_opt.zero_grad()
    (-(policy(states).sum(1) * rewards).mean()).backward()
    policy_opt.step()
    temp_opt.zero_grad()
    (log_temp.exp() * rewards.mean()).backward()
    temp_opt.step()


def main(stream, labelled, iterations, width=8):
    policy, log_temp = Policy(width), torch.zeros(1, requires_grad=True)
    reward_model = Scorer(width)
    policy_opt, temp_opt = torch.optim.Adam(policy.parameters(), lr=1e-3), torch.optim.Adam([log_temp], lr=1e-3)
    reward_opt = torch.optim.Adam(reward_model.parameters(), lr=1e-4)
    fit_rewards(reward_model, reward_opt, labelled)
    rewards = torch.zeros(width)
    for _ in range(iterations):
        states = next(stream)
        policy_update(policy, states, rewards, log_temp, policy_opt, temp_opt)
        reward_model.eval()
        with torch.no_grad():
            rewards = reward_model(policy(states)).squeeze(1)
