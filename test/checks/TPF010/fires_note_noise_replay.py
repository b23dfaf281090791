# TPF010 partial_seeding: evolution strategies share perturbations as
# seeds. The learner reseeds numpy with each seed a worker reported to
# regenerate that worker's noise, and each worker reseeds with a draw of
# numpy itself: neither seeds the run, so nothing is seeded at start-up (a
# note at the update), and no "numpy is seeded" warning.
import numpy as np
import torch
import torch.multiprocessing as mp


def perturbation(policy):
    return [torch.from_numpy(np.random.standard_normal(p.shape)).float() for p in policy.parameters()]


def explorer(policy, jobs, results, score):
    while jobs.get() is not None:
        for _ in range(4):
            s = int(np.random.randint(2**31 - 1))
            np.random.seed(s)
            results.put((s, score(policy, perturbation(policy))))


# case: reseeding per reported result, in a loop that trains nothing
def learn(policy, jobs, results, opt, rounds, sigma):
    for _ in range(rounds):
        jobs.put(policy.state_dict())
        steps = []
        for _ in range(8):
            seed, fitness = results.get()
            np.random.seed(seed)
            steps.append([fitness * n for n in perturbation(policy)])
        for p, *grads in zip(policy.parameters(), *steps):
            p.grad = -sum(grads) / (8 * sigma)
        opt.step()  # expect: TPF010


if __name__ == "__main__":
    net = torch.nn.Linear(4, 2)
    q_jobs, q_results = mp.Queue(), mp.Queue()
    mp.Process(target=explorer, args=(net, q_jobs, q_results, None)).start()
    learn(net, q_jobs, q_results, torch.optim.Adam(net.parameters()), 100, 0.05)
