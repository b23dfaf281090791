from dataclasses import dataclass


@dataclass
class TrainConfig:
    vocab: int = 1000
    width: int = 256
    depth: int = 4
    batch_size: int = 32
    lr: float = 3e-4
