# TPF003 backward_without_zero_grad: an actor-critic worker clears its
# gradients at the top of every iteration, then collects a rollout through a
# helper that steps the environment (`env.step(action)`, no optimizer step)
# and learns through another. The rollout helper's step is not a second
# optimizer step that the path from the learner's step could reach.
import torch

torch.manual_seed(7)


class Worker:
    def __init__(self, env, model, optimizer, horizon):
        self.env, self.model, self.optimizer, self.horizon = env, model, optimizer, horizon
        self.obs = env.reset()

    def collect(self):
        values, rewards = [], []
        for _ in range(self.horizon):
            logits, value = self.model(torch.as_tensor(self.obs).float().unsqueeze(0))
            action = torch.distributions.Categorical(logits=logits).sample()
            self.obs, reward, done, _ = self.env.step(action.item())
            values.append(value)
            rewards.append(reward)
            if done:
                self.obs = self.env.reset()
        return values, rewards

    def learn(self, values, rewards):
        returns = torch.tensor(rewards).cumsum(0).flip(0)
        loss = (returns - torch.cat(values).squeeze(1)).pow(2).mean()
        loss.backward()
        self.optimizer.step()

    # case: zero_grad first, then a rollout helper and a learner helper
    def run(self, updates):
        for _ in range(updates):
            self.model.zero_grad()
            values, rewards = self.collect()
            self.learn(values, rewards)


if __name__ == "__main__":
    Worker(None, None, None, 5).run(10)
