def seed_all(seed):
    import random
    random.seed(seed)
