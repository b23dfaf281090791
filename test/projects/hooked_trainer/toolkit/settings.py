# Run settings of the engine: defaults, overridden by keyword per run.


class Settings:
    def __init__(self, **overrides):
        self.batch_size = 48
        self.lr = 1e-3
        self.epochs = 3
        self.workers = 2
        for key, value in overrides.items():
            setattr(self, key, value)
