# TPF010 stays silent: a numpy-and-gym script imports nothing of torch, so
# seeding numpy alone seeds everything it draws from (a cross-entropy-method
# search whose policies are numpy arrays).
import argparse

import gym
import numpy as np


# case: the population update steps a numpy optimizer of its own
class Adam:
    def __init__(self, theta, lr=0.01):
        self.theta, self.lr, self.m = theta, lr, np.zeros_like(theta)

    def step(self, grad):
        self.m = 0.9 * self.m + 0.1 * grad
        self.theta = self.theta - self.lr * self.m
        return self.theta


# case: rollouts of a linear policy, `env.step` every step
def rollout(env, theta, steps):
    total, ob = 0.0, env.reset()
    for t in range(steps):
        ob, reward, done, _ = env.step(int(ob @ theta > 0))
        total += reward
        if done:
            break
    return total


# case: the elite mean of a sampled population
def cem(env, iters, batch, elite):
    mean, std = np.zeros(4), np.ones(4)
    for it in range(iters):
        thetas = mean + std * np.random.randn(batch, 4)
        rewards = np.array([rollout(env, th, 200) for th in thetas])
        best = thetas[rewards.argsort()[-elite:]]
        mean, std = best.mean(0), best.std(0)
    return mean


# case: the script seeds numpy and trains with the optimizer above
if __name__ == "__main__":
    args = argparse.ArgumentParser().parse_args()
    np.random.seed(0)
    env = gym.make("CartPole-v0")
    opt = Adam(np.zeros(4))
    for it in range(100):
        opt.step(np.random.randn(4))
    print(cem(env, 10, 25, 5))
