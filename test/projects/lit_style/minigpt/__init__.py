from minigpt.config import Config
from minigpt.model import GPT

__all__ = ["Config", "GPT"]
