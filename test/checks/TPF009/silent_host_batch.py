# TPF009 silent: per-element copies of parts of the DataLoader's batch
# before anything moves to the GPU (host tensors: nothing to wait for), and
# a rollout loop whose `step(action)` is the environment's, not a training step.
import gymnasium as gym
import numpy as np
import torch
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
np.random.seed(0)
device = "cuda"
data = TensorDataset(torch.randn(64, 4), torch.randint(0, 3, (64, 2)))
net = torch.nn.Linear(4, 6).to(device)
opt = torch.optim.Adam(net.parameters())


def collate(batch):
    return torch.stack([b[0] for b in batch]), [b[1] for b in batch]


# case: target lists converted per sample, with a custom collate
def train(epochs):
    loader = DataLoader(data, batch_size=8, shuffle=True, collate_fn=collate, num_workers=2, pin_memory=True)
    for epoch in range(epochs):
        for i, (x, target) in enumerate(loader):
            opt.zero_grad()
            x = x.to(device)
            rows = [label.tolist() for label in target]
            y = torch.tensor([r[0] for r in rows], device=device)
            torch.nn.functional.cross_entropy(net(x)[:, :3], y).backward()
            opt.step()


# case: a loader of the module, items of the batch read with .item()
loader = DataLoader(data, batch_size=8, num_workers=2, pin_memory=True)
for epoch in range(3):
    for x, y in loader:
        counts = {}
        for row in y:
            counts[row[0].item()] = counts.get(row[0].item(), 0) + 1
        loss = net(x.to(device)).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()


# case: a rollout loop of an RL script; the episode log reads a GPU value
def rollout(envs, rewards, obs):
    for t in range(128):
        x = torch.tensor(obs, device=device, dtype=torch.float32)
        rewards[t] = net(x)[:, 0].detach()
        obs, r, done, trunc, info = envs.step(np.zeros(8, dtype=np.int64))
        for i, d in enumerate(done):
            if d:
                print(f"reward={rewards[t][i].item()}")
    return obs


class EpisodeStats(gym.Wrapper):
    def step(self, action):
        obs, r, done, trunc, info = super().step(action)
        self.returns = getattr(self, "returns", 0) + r
        return obs, r, done, trunc, info


# case: the same rollout through a wrapper class of the file
def rollout_wrapped(envs, values, obs):
    for t in range(64):
        values[t] = net(torch.as_tensor(obs, device=device)).mean(1)
        obs, r, done, trunc, info = envs.step(np.zeros(8, dtype=np.int64))
        for i, d in enumerate(done):
            if d:
                print(values[t][i].cpu().numpy())
    return obs


envs = EpisodeStats(gym.vector.SyncVectorEnv([lambda: gym.make("CartPole-v1")] * 8))
obs, _ = envs.reset(seed=0)
for update in range(10):
    obs = rollout(envs, torch.zeros(128, 8, device=device), obs)
    obs = rollout_wrapped(envs, torch.zeros(64, 8, device=device), obs)
    loss = net(torch.randn(8, 4, device=device)).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
