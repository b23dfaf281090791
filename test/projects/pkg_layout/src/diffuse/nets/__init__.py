__all__ = ["UNetLite"]

from .unet import UNetLite, _private_helper
