# TPF009 silent: a policy-gradient script that never places a tensor on a
# GPU and runs its training function from module code (`train()` on its
# last line, no `__main__` test, no argument parser): a program, whose
# per-step `.numpy()` of the sampled action reads host memory.
import gym
import torch
import torch.nn as nn
from itertools import count
from torch.distributions import Categorical

torch.manual_seed(0)
env = gym.make("CartPole-v0")
policy = nn.Sequential(nn.Linear(4, 24), nn.ReLU(), nn.Linear(24, 2), nn.Softmax(dim=-1))
optimizer = torch.optim.RMSprop(policy.parameters(), lr=0.01)


# case: the episode loop samples an action per environment step
def play(state):
    states, actions, rewards = [], [], []
    for t in count():
        c = Categorical(policy(state))
        action = c.sample()
        a = action.data.numpy().astype("int32")
        next_state, reward, done, _ = env.step(a)
        states.append(state)
        actions.append(float(a))
        rewards.append(reward)
        state = torch.from_numpy(next_state).float()
        if done:
            break
    return states, actions, rewards


# case: the update loop reads each log-probability's value for the log
def train(episodes=500):
    for episode in range(episodes):
        state = torch.from_numpy(env.reset()).float()
        states, actions, rewards = play(state)
        optimizer.zero_grad()
        logs = []
        for s, a, r in zip(states, actions, rewards):
            loss = -Categorical(policy(s)).log_prob(torch.tensor(a)) * r
            loss.backward()
            logs.append(loss.item())
        optimizer.step()


# case: the same per-step read inside the training loop itself
def train_inline(episodes=500):
    for episode in range(episodes):
        state = torch.from_numpy(env.reset()).float()
        for t in range(200):
            probs = policy(state)
            action = Categorical(probs).sample()
            nxt, reward, done, _ = env.step(action.numpy())
            loss = -probs[action.item()].log() * reward
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            if done:
                break
            state = torch.from_numpy(nxt).float()


# case: module code runs the training
train()
