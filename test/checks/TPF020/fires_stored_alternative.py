# TPF020 fires: attributes that hold a command-line path on some run even
# though the script also stores its own file there. Each stored value is
# judged alone: writing the script's initial weights into `args.init_from`
# when the option is empty does not make a path the user names the
# script's own, and an attribute of an object set from an option holds it.
import argparse

import torch


class Evaluator:
    def __init__(self, args):
        self.weights = args.init_from

    def load(self, net):
        # case: an object's attribute set from an option
        net.load_state_dict(torch.load(self.weights))  # expect: TPF020


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--init_from", default="")
    parser.add_argument("--run_dir", default="out")
    args = parser.parse_args()
    net = torch.nn.Linear(5, 5)
    if not args.init_from:
        first = f"{args.run_dir}/init.pth"
        torch.save(net.state_dict(), first)
        args.init_from = first
    # case: the option, or the script's own file when it is empty
    net.load_state_dict(torch.load(args.init_from))  # expect: TPF020
    Evaluator(args).load(net)


if __name__ == "__main__":
    main()
