# TPF010 stays silent: `env.step()` of a Gymnasium environment is no
# optimizer step, so this rollout script trains nothing; torch is here
# only for its TensorBoard writer.
import random

import gymnasium as gym
from torch.utils.tensorboard import SummaryWriter

if __name__ == "__main__":
    random.seed(3)
    board = SummaryWriter("runs/random-agent")
    env = gym.make("MountainCar-v0")
    obs, _ = env.reset(seed=3)
    for t in range(500):
        obs, reward, done, cut, _ = env.step(env.action_space.sample())
        board.add_scalar("reward", reward, t)
        if done or cut:
            obs, _ = env.reset()
