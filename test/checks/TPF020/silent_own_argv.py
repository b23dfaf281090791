# TPF020 silent: unit tests that run a training entry point on arguments
# they write themselves (a patched `sys.argv`, a list handed to
# parse_args), pointing at a temporary folder they made, then load the
# checkpoint that run wrote there. Nothing comes from the command line.
import argparse
import os
import sys
import tempfile
import unittest
from unittest import mock
from unittest.mock import patch

import torch

from trainer_entry import fit  # writes <output_dir>/last.ckpt


def make_parser():
    parser = argparse.ArgumentParser()
    parser.add_argument("--output_dir")
    return parser


class TrainSmokeTest(unittest.TestCase):
    # case: sys.argv patched with patch.object around parse_args
    def test_patch_object(self):
        out = tempfile.mkdtemp()
        testargs = ["train.py", f"--output_dir={out}"]
        with patch.object(sys, "argv", testargs):
            args = make_parser().parse_args()
            fit(args)
        ckpt = torch.load(os.path.join(args.output_dir, "last.ckpt"), map_location="cpu")
        self.assertIn("state_dict", ckpt)

    # case: sys.argv patched by its dotted name
    def test_patch_name(self):
        out = tempfile.mkdtemp()
        with mock.patch("sys.argv", ["train.py", "--output_dir", out]):
            args = make_parser().parse_args()
            fit(args)
        self.assertIn("state_dict", torch.load(f"{args.output_dir}/last.ckpt"))

    # case: the argument list handed to parse_args
    def test_explicit_list(self):
        out = tempfile.mkdtemp()
        args = make_parser().parse_args(["--output_dir", out])
        fit(args)
        self.assertIn("state_dict", torch.load(os.path.join(args.output_dir, "last.ckpt")))


if __name__ == "__main__":
    unittest.main()
