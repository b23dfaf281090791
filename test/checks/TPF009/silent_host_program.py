# TPF009 silent: an evolution-strategies script that never places a tensor
# on a GPU. Its per-candidate .item() in the inner loop reads host memory:
# there is no device queue to wait for. (With `.to(device)` anywhere in the
# file, or a "cuda" device string, the same loop is a per-element sync.)
import argparse

import torch
from torch import nn


def fitness(policy, weights, episodes):
    torch.nn.utils.vector_to_parameters(weights, policy.parameters())
    with torch.no_grad():
        obs = torch.randn(episodes, 8)
        return policy(obs).sum(dim=1).mean()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--population", type=int, default=32)
    ap.add_argument("--generations", type=int, default=100)
    args = ap.parse_args()
    torch.manual_seed(0)
    policy = nn.Sequential(nn.Linear(8, 32), nn.Tanh(), nn.Linear(32, 2))
    critic = nn.Linear(8, 1)
    opt = torch.optim.SGD(critic.parameters(), lr=1e-2)
    center = torch.nn.utils.parameters_to_vector(policy.parameters()).detach()
    for gen in range(args.generations):
        noise = torch.randn(args.population, center.numel())
        scores = []
        for i in range(args.population):
            scores.append(fitness(policy, center + 0.05 * noise[i], 4).item())
        ranked = torch.tensor(scores).argsort().float()
        center = center + 0.01 * (ranked @ noise) / args.population
        baseline = critic(torch.randn(16, 8)).mean()
        loss = (baseline - max(scores)) ** 2
        opt.zero_grad()
        loss.backward()
        opt.step()


if __name__ == "__main__":
    main()
