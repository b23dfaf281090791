# TPF020 silent: a model library in the style of pytorch_pretrained_bert's
# modeling.py. It names a logger after `__name__` (no `__name__ ==
# "__main__"` test), parses no arguments, so it is imported, not run: the
# caller of from_pretrained chose the archive, and the caller is where to
# decide how far to trust it.
import logging
import os

import torch

from .file_utils import cached_path

logger = logging.getLogger(__name__)
WEIGHTS_NAME = "pytorch_model.bin"


class PreTrainedModel(torch.nn.Module):
    # case: a downloaded archive's weights, loaded in from_pretrained
    @classmethod
    def from_pretrained(cls, name_or_path, cache_dir=None):
        serialization_dir = cached_path(name_or_path, cache_dir=cache_dir)
        logger.info("loading %s", serialization_dir)
        model = cls()
        state = torch.load(os.path.join(serialization_dir, WEIGHTS_NAME), map_location="cpu")
        model.load_state_dict(state)
        return model

    # case: an environment variable, read by library code
    @classmethod
    def from_env(cls):
        model = cls()
        model.load_state_dict(torch.load(os.environ["BERT_WEIGHTS"]))
        return model
