# TPF003 backward_without_zero_grad: the learner clears only every tenth
# update; the rollout helper between (an environment's steps) changes
# nothing: the updates between clears step on summed gradients.
import torch


def rollout(env, policy, obs, n):
    traj = []
    for _ in range(n):
        act = policy(torch.as_tensor(obs).float()).argmax()
        obs, rew, _, _ = env.step(int(act) if n > 1 else 0)  # a temporary: no name
        traj.append((obs, rew))
    return obs, traj


def update(policy, optimizer, traj):
    loss = -sum(policy(torch.as_tensor(o).float()).max() * r for o, r in traj)
    loss.backward()
    optimizer.step()


# case: the clear runs on some updates only
def train(env, policy, optimizer, updates):
    obs = env.reset()
    for u in range(updates):
        if u % 10 == 0:
            optimizer.zero_grad()
        obs, traj = rollout(env, policy, obs, 16)
        update(policy, optimizer, traj)  # expect: TPF003


if __name__ == "__main__":
    torch.manual_seed(0)
    train(None, None, None, 100)
