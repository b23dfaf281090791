// The estimate of a run with the script's own command line (issue 24):
// EstimateOptions::argv, what follows `--` on tpf-analyze's, as argparse
// parses it (options with `=`, short aliases, unique prefixes, positionals,
// nargs, store_true, subcommands) and as `sys.argv` shows it; required
// arguments the run leaves out are named with how to pass them; and an
// unknown verdict always carries a blocking reason.
#include <doctest/doctest.h>

#include "test/memory/memory_test_util.h"

using namespace tpf;

namespace {

memory::Estimate run(std::string_view code, std::vector<std::string> argv) {
  static std::vector<std::unique_ptr<test::Script>> keep;  // the IR must outlive the estimate
  keep.push_back(test::load_script_text("train.py", std::string(code)));
  memory::EstimateOptions opt;
  opt.target = test::target("t4");
  opt.suggest = false;
  opt.argv = std::move(argv);
  return memory::estimate(keep.back()->ir, opt);
}

std::vector<std::string> whats(const memory::Estimate& e) {
  std::vector<std::string> out;
  for (const auto& u : e.config.unknowns) out.push_back(u.what + (u.blocking ? " [blocking]" : ""));
  return out;
}

// pytorch/examples mnist/imagenet style: a required positional, an alias,
// a choice that sizes the model, flags.
constexpr std::string_view kMnist = R"(import argparse, torch, torch.nn as nn
parser = argparse.ArgumentParser(description="MNIST-style training")
parser.add_argument("data", help="path to the dataset")
parser.add_argument("-b", "--batch-size", type=int, default=64)
parser.add_argument("--hidden", type=int, default=128)
parser.add_argument("--layers", type=int, nargs="+", default=[1])
parser.add_argument("--amp", action="store_true")
parser.add_argument("--arch", default="small", choices=["small", "big"])
args = parser.parse_args()
width = 1024 if args.arch == "big" else args.hidden
width = width * len(args.layers)
model = nn.Sequential(nn.Linear(784, width), nn.ReLU(), nn.Linear(width, 10))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(10):
    x = torch.randn(args.batch_size, 784)
    y = torch.randint(0, 10, (args.batch_size,))
    with torch.autocast("cuda", dtype=torch.float16, enabled=args.amp):
        loss = nn.functional.cross_entropy(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
)";

uint64_t mlp(uint64_t w) { return 784 * w + w + w * 10 + 10; }

}  // namespace

TEST_CASE("script args: without arguments the defaults, a missing positional changes nothing known") {
  memory::Estimate e = run(kMnist, {});
  CHECK(e.params == mlp(128));
  CHECK(e.config.batch_size.value == 64);
  CHECK(e.config.batch_size.origin.line == 4);
  CHECK(e.config.batch_size.origin.source == "argparse --batch-size default");
  CHECK_FALSE(e.config.autocast.has_value());
  CHECK(e.verdict == memory::Verdict::Fits);
  CHECK(whats(e).empty());  // `data` is missing, but nothing the estimate needs came from it
}

TEST_CASE("script args: options with `=`, short aliases, nargs lists and flags override the defaults") {
  memory::Estimate e = run(kMnist, {"/data/mnist", "-b", "16", "--arch=big", "--amp", "--layers", "1", "2"});
  CHECK(e.params == mlp(2048));
  CHECK(e.config.batch_size.value == 16);
  CHECK(e.config.batch_size.origin.line == 4);
  CHECK(e.config.batch_size.origin.source == "argv -b 16");
  REQUIRE(e.config.autocast.has_value());
  CHECK(*e.config.autocast == memory::Dtype::Float16);
  CHECK(whats(e).empty());
}

TEST_CASE("script args: a unique prefix of a long option is that option; an unknown one is named") {
  memory::Estimate e = run(kMnist, {"/data", "--batch", "8", "--hid", "256", "--bogus"});
  CHECK(e.params == mlp(256));
  CHECK(e.config.batch_size.value == 8);
  CHECK(e.config.batch_size.origin.source == "argv --batch 8");
  CHECK(whats(e) == std::vector<std::string>{
                        "`--bogus` on the script's command line is not an argument of its parser"});
}

// fast_neural_style style: subcommands, each with its own arguments.
constexpr std::string_view kSubcommands = R"(import argparse, torch, torch.nn as nn
p = argparse.ArgumentParser()
sub = p.add_subparsers(title="subcommands", dest="subcommand")
tr = sub.add_parser("train")
tr.add_argument("--batch-size", type=int, default=4)
tr.add_argument("--dataset", type=str, required=True)
ev = sub.add_parser("eval")
ev.add_argument("--model", required=True)
args = p.parse_args()
if args.subcommand is None:
    raise SystemExit(1)
model = nn.Linear(32, 8)
opt = torch.optim.Adam(model.parameters())
for x in load(args.dataset):
    model(x).sum().backward()
    opt.step()
)";

TEST_CASE("script args: no subcommand leaves the verdict unknown, with the reason and the fix") {
  memory::Estimate e = run(kSubcommands, {});
  CHECK(e.verdict == memory::Verdict::Unknown);
  CHECK(whats(e) ==
        std::vector<std::string>{
            "the script raises here with the values the estimate has (`raise SystemExit(1)`), and the run "
            "stops there: give the run's arguments after `--` (`tpf-analyze ... SCRIPT -- --name VALUE`) [blocking]",
            "no subcommand `{train,eval}` is given: pass one after `--` (`tpf-analyze ... SCRIPT -- train`)"});
  CHECK(e.config.unknowns[0].line == 11);
  CHECK(e.config.unknowns[1].line == 3);
}

TEST_CASE("script args: a subcommand parses the rest with its own parser") {
  memory::Estimate e = run(kSubcommands, {"train", "--batch-size", "2", "--dataset", "/d"});
  CHECK(e.params == 32 * 8 + 8);
  CHECK(e.config.batch_size.value == 2);
  CHECK(e.config.batch_size.origin.line == 5);
  CHECK(e.verdict == memory::Verdict::Fits);
}

TEST_CASE("script args: a required option the run leaves out is named when the verdict needs it") {
  memory::Estimate e = run(R"(import argparse, torch, torch.nn as nn
p = argparse.ArgumentParser()
p.add_argument("--width", type=int, required=True)
p.add_argument("--batch-size", type=int, default=8)
args = p.parse_args()
model = nn.Linear(args.width, 10)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
loss = model(torch.randn(args.batch_size, args.width)).sum()
loss.backward()
opt.step()
)",
                           {});
  CHECK(e.verdict == memory::Verdict::Unknown);
  std::vector<std::string> w = whats(e);
  REQUIRE(w.size() == 3);
  // The Linear built from the missing width: a lower bound, never a silent count.
  CHECK(w[0] == "a layer size comes from a value the interpreter could not read: the parameter count is a "
                "lower bound");
  CHECK(e.config.unknowns[0].line == 6);
  CHECK_FALSE(e.params_exact);
  CHECK(w[2] == "the required argument `--width` is not given: pass it after `--` (`tpf-analyze ... SCRIPT -- "
                "--width VALUE`)");
  CHECK(e.config.unknowns[2].line == 3);
  memory::Estimate given = run(R"(import argparse, torch, torch.nn as nn
p = argparse.ArgumentParser()
p.add_argument("--width", type=int, required=True)
args = p.parse_args()
model = nn.Linear(args.width, 10)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
loss = model(torch.randn(8, args.width)).sum()
loss.backward()
opt.step()
)",
                               {"--width", "512"});
  CHECK(given.params == 512 * 10 + 10);
  CHECK(given.params_exact);
  CHECK(given.verdict == memory::Verdict::Fits);
}

TEST_CASE("script args: sys.argv is the script's path and the run's arguments") {
  memory::Estimate e = run(R"(import sys, torch, torch.nn as nn
batch_size = 4
for arg in sys.argv[1:]:
    if arg.startswith("--batch_size="):
        batch_size = int(arg.split("=")[1])
model = nn.Linear(16, 16)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
model(torch.randn(batch_size, 16)).sum().backward()
opt.step()
)",
                           {"--batch_size=32"});
  REQUIRE(e.phases.size() == 1);
  // Linear saves its input for the weight's gradient: 32 x 16 floats.
  CHECK(e.phases[0].activation_bytes == 32 * 16 * 4);
}

TEST_CASE("script args: arguments nothing reads are reported") {
  memory::Estimate e = run(R"(import torch, torch.nn as nn
model = nn.Linear(16, 16)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
model(torch.randn(4, 16)).sum().backward()
opt.step()
)",
                           {"--batch-size", "8"});
  CHECK(whats(e) == std::vector<std::string>{"the script's command line after `--` is not read: the script parses "
                                             "no argparse arguments and reads no `sys.argv`"});
}

TEST_CASE("unknown verdicts: a loss the interpreter cannot follow is the named, blocking reason") {
  // The batch comes from a function over data it cannot see, and the
  // forward ends in a call it does not know, so no loss has a graph.
  memory::Estimate e = run(R"(import torch, torch.nn as nn
from mylib import fancy_head
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(16, 4)
    def forward(self, x):
        return fancy_head(self.fc(x))
batch_size = 8
model = Net()
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for it in range(10):
    X, Y = get_batch("train")
    loss = model(X)
    loss.backward()
    opt.step()
)",
                           {});
  CHECK(e.verdict == memory::Verdict::Unknown);
  std::vector<std::string> w = whats(e);
  REQUIRE_FALSE(w.empty());
  CHECK(w.back() == "the loss at line 15 comes from values the interpreter could not follow, and the forward of "
                    "`Net` on a synthesized input gave no output the interpreter could follow [blocking]");
  CHECK(e.config.unknowns.back().line == 15);
}

// transformers' HfArgumentParser over the script's own dataclasses and
// TrainingArguments (run_clm.py style): fields take their options, the
// library dataclass the rest; a field with `field(metadata=...)` and no
// default is a required argument.
constexpr std::string_view kHfArgs = R"py(import sys, torch, torch.nn as nn
from dataclasses import dataclass, field
from typing import Optional
from transformers import HfArgumentParser, TrainingArguments

@dataclass
class ModelArguments:
    width: Optional[int] = field(metadata={"help": "hidden width (required)"})
    run_name: str = field(default="run", metadata={"help": "a name"})
    tie: bool = False

@dataclass
class DataArguments:
    max_seq_length: int = 128

parser = HfArgumentParser((ModelArguments, DataArguments, TrainingArguments))
margs, dargs, targs = parser.parse_args_into_dataclasses()
model = nn.Sequential(nn.Embedding(1000, margs.width), nn.Linear(margs.width, 1000))
opt = torch.optim.AdamW(model.parameters())
for step in range(10):
    x = torch.randint(0, 1000, (targs.per_device_train_batch_size, dargs.max_seq_length))
    loss = model(x).logsumexp(-1).mean()
    loss.backward()
    opt.step()
)py";

uint64_t emb_lm(uint64_t w) { return 1000 * w + w * 1000 + 1000; }

TEST_CASE("script args: HfArgumentParser fills the script's dataclasses and TrainingArguments") {
  memory::Estimate e = run(kHfArgs, {});
  CHECK(!e.params_exact);  // the width is the required --width
  CHECK(*e.config.batch_size.value == 8);  // TrainingArguments' default
  CHECK(*e.config.seq_len.value == 128);
  auto w = whats(e);
  CHECK(std::find(w.begin(), w.end(),
                  "the required argument `--width` is not given: pass it after `--` (`tpf-analyze ... SCRIPT -- "
                  "--width VALUE`)") != w.end());

  e = run(kHfArgs, {"--run_name", "x", "--width=512", "--max_seq_length", "64", "--per_device_train_batch_size",
                    "16", "--tie"});
  CHECK(e.params == emb_lm(512));
  CHECK(*e.config.batch_size.value == 16);
  CHECK(e.config.batch_size.origin.source == "argv --per_device_train_batch_size 16");
  CHECK(*e.config.seq_len.value == 64);
  CHECK(e.config.seq_len.origin.source == "argv --max_seq_length 64 (was 128, line 14)");
  for (const std::string& u : whats(e)) CHECK(u.find("required argument") == std::string::npos);
}

// click and fire read the same command line (issue 24).
constexpr std::string_view kClick = R"py(import click, torch, torch.nn as nn

@click.command()
@click.argument("data")
@click.option("--batch-size", "-b", default=32)
@click.option("--width", type=int, default=256)
@click.option("--amp/--no-amp", default=False)
def main(data, batch_size, width, amp):
    model = nn.Sequential(nn.Linear(784, width), nn.ReLU(), nn.Linear(width, 10))
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for step in range(10):
        x = torch.randn(batch_size, 784)
        with torch.autocast("cuda", dtype=torch.float16, enabled=amp):
            loss = model(x).sum()
        loss.backward()
        opt.step()

if __name__ == "__main__":
    main()
)py";

constexpr std::string_view kFire = R"py(import fire, torch, torch.nn as nn

class Run:
    def __init__(self, width=256):
        self.width = width

    def train(self, batch_size=32, amp=False):
        model = nn.Sequential(nn.Linear(784, self.width), nn.ReLU(), nn.Linear(self.width, 10))
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        for step in range(10):
            x = torch.randn(batch_size, 784)
            with torch.autocast("cuda", dtype=torch.float16, enabled=amp):
                loss = model(x).sum()
            loss.backward()
            opt.step()

if __name__ == "__main__":
    fire.Fire(Run)
)py";

TEST_CASE("script args: click options, arguments and flags") {
  memory::Estimate e = run(kClick, {});
  CHECK(e.params == mlp(256));
  CHECK(*e.config.batch_size.value == 32);
  CHECK(!e.config.autocast);
  e = run(kClick, {"-b", "8", "cifar", "--width=512", "--amp"});
  CHECK(e.params == mlp(512));
  CHECK(*e.config.batch_size.value == 8);
  CHECK(e.config.batch_size.origin.source == "argv -b 8");
  CHECK(e.config.autocast == memory::Dtype::Float16);
  e = run(kClick, {"cifar", "--no-amp", "extra"});
  auto w = whats(e);
  CHECK(std::find(w.begin(), w.end(),
                  "argument `extra` of the run's command line is not an option of the click command: not applied") !=
        w.end());
}

TEST_CASE("script args: fire builds the class and calls the method the command line names") {
  memory::Estimate e = run(kFire, {"train"});
  CHECK(e.params == mlp(256));
  CHECK(*e.config.batch_size.value == 32);
  e = run(kFire, {"--width=128", "train", "--batch_size", "64", "--amp"});
  CHECK(e.params == mlp(128));
  CHECK(*e.config.batch_size.value == 64);
  CHECK(e.config.batch_size.origin.source == "argv --batch_size 64");
  CHECK(e.config.autocast == memory::Dtype::Float16);
}

// fire.Fire(fn) calls the function with the run's arguments: `--name=value`,
// `--name value`, a bare `--flag` as True, the rest positionally in order
// (the shape of many research scripts: `def main(lr=..., batch_size=...)`).
constexpr std::string_view kFireFn = R"py(import fire, torch, torch.nn as nn

def main(width=256, batch_size=32, amp=False, steps=10):
    model = nn.Sequential(nn.Linear(784, width), nn.ReLU(), nn.Linear(width, 10)).cuda()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for step in range(steps):
        x = torch.randn(batch_size, 784, device="cuda")
        with torch.autocast("cuda", dtype=torch.float16, enabled=amp):
            loss = model(x).sum()
        opt.zero_grad()
        loss.backward()
        opt.step()

if __name__ == "__main__":
    fire.Fire(main)
)py";

TEST_CASE("script args: fire.Fire(fn) binds the run's arguments to the function's parameters") {
  memory::Estimate e = run(kFireFn, {});
  CHECK(e.params == mlp(256));
  CHECK(*e.config.batch_size.value == 32);
  CHECK(!e.config.autocast);
  e = run(kFireFn, {"--width=128", "--batch_size", "64", "--amp"});
  CHECK(e.params == mlp(128));
  CHECK(*e.config.batch_size.value == 64);
  CHECK(e.config.batch_size.origin.source == "argv --batch_size 64");
  CHECK(e.config.autocast == memory::Dtype::Float16);
  e = run(kFireFn, {"512", "8"});  // positionally: width, then batch_size
  CHECK(e.params == mlp(512));
  CHECK(*e.config.batch_size.value == 8);
}

// fire.Fire({"train": train, "eval": evaluate}): the first argument picks the
// function, the rest are its arguments.
constexpr std::string_view kFireDict = R"py(import fire, torch, torch.nn as nn

def train(width=256, batch_size=32):
    model = nn.Sequential(nn.Linear(784, width), nn.ReLU(), nn.Linear(width, 10)).cuda()
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    for step in range(10):
        x = torch.randn(batch_size, 784, device="cuda")
        loss = model(x).sum()
        opt.zero_grad()
        loss.backward()
        opt.step()

def evaluate(width=4096, batch_size=1024):
    model = nn.Sequential(nn.Linear(784, width), nn.ReLU(), nn.Linear(width, 10)).cuda()
    with torch.no_grad():
        model(torch.randn(batch_size, 784, device="cuda"))

if __name__ == "__main__":
    fire.Fire({"train": train, "eval": evaluate})
)py";

TEST_CASE("script args: fire.Fire({name: fn}) runs the function the command line names") {
  memory::Estimate e = run(kFireDict, {"train"});
  CHECK(e.params == mlp(256));
  CHECK(*e.config.batch_size.value == 32);
  CHECK(e.config.optimizers.size() == 1);
  e = run(kFireDict, {"train", "--width", "128", "--batch_size=16"});
  CHECK(e.params == mlp(128));
  CHECK(*e.config.batch_size.value == 16);
  CHECK(e.config.batch_size.origin.source == "argv --batch_size=16");
  e = run(kFireDict, {"eval"});
  CHECK(e.params == mlp(4096));
  CHECK(e.config.optimizers.empty());
}

// jsonargparse.CLI runs a function with the run's arguments as its
// parameters: `--name value`, a required one positionally, `--arg.field
// value` into the dataclass instance the parameter defaults to (litgpt).
constexpr std::string_view kJsonargparse = R"py(from dataclasses import dataclass
import torch, torch.nn as nn
from jsonargparse import CLI

@dataclass
class TrainArgs:
    micro_batch_size: int = 16
    lr: float = 1e-3

def setup(width: int, depth: int = 2, train: TrainArgs = TrainArgs()):
    model = nn.Sequential(*[nn.Linear(width, width) for _ in range(depth)])
    opt = torch.optim.SGD(model.parameters(), lr=train.lr)
    for step in range(10):
        x = torch.randn(train.micro_batch_size, width)
        model(x).sum().backward()
        opt.step()

def evaluate(width: int):
    pass

if __name__ == "__main__":
    CLI(setup)
)py";

TEST_CASE("script args: jsonargparse binds parameters, positionals and dataclass fields") {
  memory::Estimate e = run(kJsonargparse, {"--width", "64"});
  CHECK(e.params == 2 * (64 * 64 + 64));
  CHECK(*e.config.batch_size.value == 16);
  e = run(kJsonargparse, {"128", "--depth=3", "--train.micro_batch_size", "2"});
  CHECK(e.params == 3 * (128 * 128 + 128));
  CHECK(*e.config.batch_size.value == 2);
  CHECK(e.config.batch_size.origin.source == "argv --train.micro_batch_size 2 (was 16, line 7)");
  // The required parameter left out: named with how to give it, nothing guessed.
  e = run(kJsonargparse, {"--depth", "3"});
  CHECK(!e.model_found);
  auto w = whats(e);
  CHECK(std::find(w.begin(), w.end(),
                  "the required argument `--width` is not given: pass it after `--` (`tpf-analyze ... SCRIPT -- "
                  "--width VALUE`)") != w.end());
  // A dict of commands (litgpt's CLI(PARSER_DATA)): the first word picks one.
  std::string dict(kJsonargparse);
  dict.replace(dict.find("CLI(setup)"), 10, R"(CLI({"fit": setup, "eval": evaluate}))");
  e = run(dict, {"fit", "--width", "32", "--bogus", "1"});
  CHECK(e.params == 2 * (32 * 32 + 32));
  w = whats(e);
  CHECK(std::find(w.begin(), w.end(),
                  "argument `--bogus 1` of the run's command line is not a parameter of `setup`: not applied") !=
        w.end());
  e = run(dict, {"train"});
  w = whats(e);
  CHECK(std::find(w.begin(), w.end(),
                  "jsonargparse.CLI: the command `train` is not one of the script's (fit, eval) [blocking]") != w.end());
  e = run(dict, {});
  w = whats(e);
  CHECK(std::find(w.begin(), w.end(),
                  "no subcommand `{fit,eval}` is given: pass one after `--` (`tpf-analyze ... SCRIPT -- fit`)") !=
        w.end());
}

// simple_parsing (issue 24): `parser.add_arguments(Config, dest=...)` makes
// one option per field, named as the field (`--batch_size`; a one-letter
// field also `-d`), over a tiny language model whose widths come from one
// dataclass and whose batch from another; a plain add_argument sits beside
// them. A field name two dataclasses share takes `--dest.` before it.
constexpr std::string_view kSimpleParsing = R"py(from dataclasses import dataclass
from typing import List
import torch, torch.nn as nn
import simple_parsing
from simple_parsing import field

@dataclass
class Widths:
    vocab: int = 512
    d: int = 64
    blocks: List[int] = field(default_factory=lambda: [1])
    tied: bool = False

@dataclass
class Run:
    batch_size: int = 16
    block_size: int = field(default=32)

parser = simple_parsing.ArgumentParser()
parser.add_argument("--seed", type=int, default=0)
parser.add_arguments(Widths, dest="widths")
parser.add_arguments(Run, "run")
args = parser.parse_args()
w, r = args.widths, args.run
torch.manual_seed(args.seed)
layers = [nn.Embedding(w.vocab, w.d)]
for _ in range(sum(w.blocks)):
    layers.append(nn.Linear(w.d, w.d))
head = nn.Linear(w.d, w.vocab, bias=not w.tied)
model = nn.Sequential(*layers, head)
opt = torch.optim.AdamW(model.parameters())
for step in range(4):
    x = torch.randint(0, w.vocab, (r.batch_size, r.block_size))
    loss = model(x).logsumexp(-1).mean()
    loss.backward()
    opt.step()
    opt.zero_grad()
)py";

uint64_t tiny_lm(uint64_t vocab, uint64_t d, uint64_t blocks, bool bias) {
  return vocab * d + blocks * (d * d + d) + d * vocab + (bias ? vocab : 0);
}

TEST_CASE("script args: simple_parsing fills each dataclass from the options named like its fields") {
  memory::Estimate e = run(kSimpleParsing, {});
  CHECK(e.params == tiny_lm(512, 64, 1, true));
  CHECK(*e.config.batch_size.value == 16);
  CHECK(*e.config.seq_len.value == 32);
  CHECK(whats(e).empty());

  e = run(kSimpleParsing, {"--batch_size", "4", "-d", "128", "--blocks", "1", "2", "--tied", "--block_size=64",
                           "--seed", "3"});
  CHECK(e.params == tiny_lm(512, 128, 3, false));
  CHECK(*e.config.batch_size.value == 4);
  CHECK(e.config.batch_size.origin.source == "argv --batch_size 4 (was 16, line 16)");
  CHECK(e.config.batch_size.origin.line == 16);
  CHECK(*e.config.seq_len.value == 64);
  CHECK(e.config.seq_len.origin.source == "argv --block_size=64 (was 32, line 17)");
  CHECK(whats(e).empty());

  // A bool field: `--tied false` and `--notied` are False; `--d` is `-d`.
  e = run(kSimpleParsing, {"--tied", "false", "--d=32"});
  CHECK(e.params == tiny_lm(512, 32, 1, true));
  e = run(kSimpleParsing, {"--tied", "--notied", "--vocab", "100"});
  CHECK(e.params == tiny_lm(100, 64, 1, true));
}

TEST_CASE("script args: simple_parsing notes an option no field or argument has, and applies none") {
  memory::Estimate e = run(kSimpleParsing, {"--batch-size", "4", "--width=9", "--tied", "maybe"});
  CHECK(*e.config.batch_size.value == 16);
  CHECK(e.params == tiny_lm(512, 64, 1, false));
  CHECK(whats(e) == std::vector<std::string>{
                        "`--batch-size` on the script's command line is not an argument of its parser",
                        "`4` on the script's command line is not an argument of its parser",
                        "`--width` on the script's command line is not an argument of its parser",
                        "`maybe` on the script's command line is not an argument of its parser"});
  e = run(kSimpleParsing, {"--tied=maybe"});
  CHECK(e.params == tiny_lm(512, 64, 1, true));
  CHECK(whats(e) == std::vector<std::string>{
                        "`--tied=maybe` on the script's command line is not a boolean simple_parsing reads: not "
                        "applied"});
}

TEST_CASE("script args: simple_parsing prefixes a field name two dataclasses share with their dests") {
  std::string two(kSimpleParsing);
  two.replace(two.find("parser.add_arguments(Run, \"run\")"), 32,
              "parser.add_arguments(Run, dest=\"run\")\nparser.add_arguments(Run, dest=\"probe\")");
  memory::Estimate e = run(two, {"--run.batch_size", "2", "--d", "16"});
  CHECK(e.params == tiny_lm(512, 16, 1, true));
  CHECK(*e.config.batch_size.value == 2);
  CHECK(e.config.batch_size.origin.source == "argv --run.batch_size 2 (was 16, line 16)");
  e = run(two, {"--probe.block_size", "8", "--vocab=256"});
  CHECK(e.params == tiny_lm(256, 64, 1, true));
  CHECK(whats(e).empty());
  e = run(two, {"--batch_size", "2"});
  CHECK(*e.config.batch_size.value == 16);
  CHECK(whats(e) == std::vector<std::string>{
                        "`--batch_size` on the script's command line is not an argument of its parser",
                        "`2` on the script's command line is not an argument of its parser"});
}

// simple_parsing.parse(Config): the same options, the dataclass returned;
// `args=` (a string or a list) replaces the run's command line, a field
// with no default is a required option.
constexpr std::string_view kSimpleParse = R"py(from dataclasses import dataclass
import torch, torch.nn as nn
from simple_parsing import parse

@dataclass
class Config:
    width: int
    batch_size: int = 8

cfg = parse(Config)
model = nn.Linear(cfg.width, cfg.width)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
model(torch.randn(cfg.batch_size, cfg.width)).sum().backward()
opt.step()
)py";

TEST_CASE("script args: simple_parsing.parse returns the dataclass; a field with no default is required") {
  memory::Estimate e = run(kSimpleParse, {"--width", "256", "--batch_size=32"});
  CHECK(e.params == 256 * 256 + 256);
  CHECK(*e.config.batch_size.value == 32);
  CHECK(e.config.batch_size.origin.source == "argv --batch_size=32 (was 8, line 8)");
  CHECK(e.verdict == memory::Verdict::Fits);

  e = run(kSimpleParse, {"--batch_size", "4"});
  CHECK(!e.params_exact);
  auto w = whats(e);
  CHECK(std::find(w.begin(), w.end(),
                  "the required argument `--width` is not given: pass it after `--` (`tpf-analyze ... SCRIPT -- "
                  "--width VALUE`)") != w.end());

  std::string given(kSimpleParse);
  given.replace(given.find("parse(Config)"), 13, "parse(Config, args=\"--width 64 --batch_size 2\")");
  e = run(given, {"--width", "9999"});
  CHECK(e.params == 64 * 64 + 64);
  CHECK(*e.config.batch_size.value == 2);
  CHECK(e.config.batch_size.origin.source == "argv --batch_size 2 (was 8, line 8)");
}

TEST_CASE("script args: simple_parsing add_arguments of what is not a dataclass is named, not followed") {
  memory::Estimate e = run(R"py(import torch, torch.nn as nn
import simple_parsing

class Plain:
    width = 64

parser = simple_parsing.ArgumentParser()
parser.add_argument("--width", type=int, default=32)
parser.add_arguments(Plain, dest="plain")
parser.add_arguments({"width": 1}, dest="d")
parser.add_arguments(Plain)
args = parser.parse_args()
model = nn.Linear(args.width, 10)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
model(torch.randn(4, args.width)).sum().backward()
opt.step()
)py",
                           {"--width", "16"});
  CHECK(e.params == 16 * 10 + 10);
  CHECK(whats(e) == std::vector<std::string>{
                        "simple_parsing add_arguments: the run's command line could not be read for `plain`: its "
                        "argument is not a dataclass the estimate follows",
                        "simple_parsing add_arguments: the run's command line could not be read for `d`: its "
                        "argument is not a dataclass the estimate follows",
                        "simple_parsing add_arguments: the run's command line could not be read for "
                        "`add_arguments`: its argument is not a dataclass the estimate follows"});
}

// simple_parsing's field(alias=...), flag() and a nested dataclass: the
// nested fields are flat options too (`--lr`), and one whose name its
// parent also has takes the nested field's name before it (`--optim.width`).
constexpr std::string_view kSimpleParsingNested = R"py(from dataclasses import dataclass
import torch, torch.nn as nn
import simple_parsing as sp

@dataclass
class Optim:
    lr: float = 1e-3
    width: int = 8

@dataclass
class Net:
    channels: int = sp.field(default=16, alias=["-c", "--chans"])
    width: int = 32
    batch_size: int = sp.field(64, alias="-b")
    optim: Optim = sp.field(default_factory=Optim)
    norm: bool = sp.flag(default=True)

p = sp.ArgumentParser()
p.add_arguments(Net, dest="net")
cfg = p.parse_args().net
model = nn.Sequential(
    nn.Conv2d(3, cfg.channels, 3, padding=1), nn.ReLU(),
    nn.Conv2d(cfg.channels, cfg.width, 3, padding=1),
    nn.BatchNorm2d(cfg.width) if cfg.norm else nn.Identity(),
    nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(cfg.width, cfg.optim.width))
opt = torch.optim.SGD(model.parameters(), lr=cfg.optim.lr)
for step in range(3):
    loss = model(torch.randn(cfg.batch_size, 3, 32, 32)).sum()
    loss.backward()
    opt.step()
)py";

uint64_t small_cnn(uint64_t c, uint64_t w, uint64_t o, bool norm) {
  return (3 * 9 * c + c) + (c * 9 * w + w) + (norm ? 2 * w : 0) + (w * o + o);
}

TEST_CASE("script args: simple_parsing aliases, flag() and nested dataclasses") {
  memory::Estimate e = run(kSimpleParsingNested, {});
  CHECK(e.params == small_cnn(16, 32, 8, true));
  CHECK(*e.config.batch_size.value == 64);
  CHECK(whats(e).empty());

  e = run(kSimpleParsingNested, {"-c", "4", "--width", "12", "--optim.width", "5", "-b", "2", "--nonorm", "--lr",
                                 "0.5"});
  CHECK(e.params == small_cnn(4, 12, 5, false));
  CHECK(*e.config.batch_size.value == 2);
  CHECK(e.config.batch_size.origin.source == "argv -b 2 (was 64, line 14)");
  CHECK(whats(e).empty());

  e = run(kSimpleParsingNested, {"--chans=6", "--norm", "false"});
  CHECK(e.params == small_cnn(6, 32, 8, false));
  // The nested width has no flat option: its parent's took it.
  e = run(kSimpleParsingNested, {"--net.width", "3"});
  CHECK(e.params == small_cnn(16, 32, 8, true));
  CHECK(whats(e) == std::vector<std::string>{
                        "`--net.width` on the script's command line is not an argument of its parser",
                        "`3` on the script's command line is not an argument of its parser"});
}

TEST_CASE("script args: simple_parsing's --config_path file is named as not read; the options still apply") {
  constexpr std::string_view kConfigPath = R"py(from dataclasses import dataclass
import torch, torch.nn as nn
from simple_parsing import ArgumentParser
from simple_parsing.helpers import Serializable

@dataclass
class Config(Serializable):
    width: int = 32
    batch_size: int = 4

parser = ArgumentParser(add_config_path_arg=True)
parser.add_arguments(Config, dest="cfg")
cfg = parser.parse_args().cfg
model = nn.Linear(cfg.width, cfg.width)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
model(torch.randn(cfg.batch_size, cfg.width)).sum().backward()
opt.step()
)py";
  memory::Estimate e = run(kConfigPath, {"--width", "64", "--config_path", "configs/run.yaml"});
  CHECK(e.params == 64 * 64 + 64);
  CHECK(whats(e) == std::vector<std::string>{
                        "simple_parsing: the config file of `--config_path configs/run.yaml` is not read: give its "
                        "values after `--`"});
  e = run(kConfigPath, {"--batch_size=2"});
  CHECK(*e.config.batch_size.value == 2);
  CHECK(e.config.batch_size.origin.source == "argv --batch_size=2 (was 4, line 9)");
  CHECK(whats(e).empty());
}

// A click group (issue 24): the group's options, then the subcommand's name
// (the function's, `_` as `-`, or the name given), then its own options;
// the group's callback runs first and leaves `ctx.obj` for the command.
constexpr std::string_view kClickGroup = R"py(import click
import torch
import torch.nn as nn

@click.group()
@click.option("--width", type=int, default=128)
@click.pass_context
def cli(ctx, width):
    ctx.ensure_object(dict)
    ctx.obj["width"] = width

@cli.command()
@click.option("--batch-size", "-b", default=32)
@click.option("--amp/--no-amp", default=False)
@click.pass_context
def train(ctx, batch_size, amp):
    w = ctx.obj["width"]
    model = nn.Sequential(nn.Embedding(1000, w), nn.Linear(w, 1000))
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for step in range(10):
        tokens = torch.randint(0, 1000, (batch_size, 16))
        with torch.autocast("cuda", dtype=torch.float16, enabled=amp):
            loss = model(tokens).logsumexp(-1).mean()
        loss.backward()
        opt.step()

@cli.command()
@click.pass_obj
def eval_model(obj):
    w = obj["width"] * 2
    model = nn.Sequential(nn.Embedding(1000, w), nn.Linear(w, 1000))
    with torch.no_grad():
        model(torch.randint(0, 1000, (4, 16)))

@click.command("tune")
@click.argument("steps", type=int)
def finetune(steps):
    pass

cli.add_command(finetune)

if __name__ == "__main__":
    cli()
)py";

TEST_CASE("script args: a click group runs the subcommand the run names, after the group's callback") {
  memory::Estimate e = run(kClickGroup, {"--width", "256", "train", "-b", "8", "--amp"});
  CHECK(e.params == emb_lm(256));
  CHECK(*e.config.batch_size.value == 8);
  CHECK(e.config.batch_size.origin.source == "argv -b 8");
  CHECK(e.config.autocast == memory::Dtype::Float16);
  CHECK(whats(e).empty());

  e = run(kClickGroup, {"train"});
  CHECK(e.params == emb_lm(128));
  CHECK(*e.config.batch_size.value == 32);
  CHECK(!e.config.autocast);

  // `eval_model` is `eval-model` on the command line (click 7+).
  e = run(kClickGroup, {"--width=64", "eval-model"});
  CHECK(e.params == emb_lm(128));
  CHECK(e.config.optimizers.empty());

  // `cli(args)` (click's main(args=...)) parses its list, not the run's words.
  std::string listed(kClickGroup);
  listed.replace(listed.find("    cli()"), 9, R"(    cli(["--width", "32", "train", "-b", "2"]))");
  e = run(listed, {"eval-model"});
  CHECK(e.params == emb_lm(32));
  CHECK(*e.config.batch_size.value == 2);
  CHECK(e.config.batch_size.origin.source == "argv -b 2");
}

TEST_CASE("script args: a click group with no subcommand says so and names its commands") {
  memory::Estimate e = run(kClickGroup, {});
  CHECK(e.verdict == memory::Verdict::Unknown);
  CHECK(whats(e) == std::vector<std::string>{
                        "the script is a click group (`cli`) and the run gives no subcommand: pass one of its "
                        "commands (train, eval-model, tune) after `--` (`tpf-analyze ... SCRIPT -- train ...`) "
                        "[blocking]"});
  CHECK(e.config.unknowns[0].line == 43);

  e = run(kClickGroup, {"--width", "64"});
  CHECK(whats(e).size() == 1);
  CHECK(whats(e)[0].starts_with("the script is a click group (`cli`) and the run gives no subcommand"));

  e = run(kClickGroup, {"eval_model"});
  CHECK(whats(e) == std::vector<std::string>{
                        "the click group `cli`: the command `eval_model` of the run's command line is not one of its "
                        "commands (train, eval-model, tune): did you mean `eval-model`? [blocking]"});

  // A group option after the subcommand is the subcommand's, which has none.
  e = run(kClickGroup, {"train", "--width", "512"});
  CHECK(e.params == emb_lm(128));
  CHECK(whats(e) == std::vector<std::string>{
                        "argument `--width` of the run's command line is not an option of the click command: not "
                        "applied",
                        "argument `512` of the run's command line is not an option of the click command: not applied"});
}

TEST_CASE("script args: click groups without commands, or run without one, are named, never a crash") {
  memory::Estimate e = run(R"py(import click

@click.group()
def cli():
    pass

cli()
)py",
                           {"train"});
  CHECK(whats(e) == std::vector<std::string>{
                        "the script's click group `cli` has no commands the estimate follows: the run's command line "
                        "could not be read, and nothing runs [blocking]"});

  // A group's own argument comes before the subcommand's name.
  e = run(R"py(import click, torch, torch.nn as nn

@click.group()
@click.argument("width", type=int)
@click.option("--scale", default=1)
@click.pass_context
def cli(ctx, width, scale):
    ctx.obj = width * scale

@cli.command()
@click.pass_obj
def fit(width):
    model = nn.Linear(width, 4)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    model(torch.randn(3, width)).sum().backward()
    opt.step()

cli()
)py",
          {"--scale", "2", "20", "fit"});
  CHECK(e.params == 40 * 4 + 4);
  CHECK(whats(e).empty());

  // invoke_without_command=True: the group's callback runs alone.
  constexpr std::string_view kAlone = R"py(import click, torch, torch.nn as nn

@click.group(invoke_without_command=True)
@click.option("--width", default=32)
@click.pass_context
def main(ctx, width):
    if ctx.invoked_subcommand is None:
        model = nn.Linear(width, width)
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        model(torch.randn(2, width)).sum().backward()
        opt.step()

@main.command(name="noop")
def nothing():
    pass

@main.command()
def warmup_cmd():
    pass

main()
)py";
  e = run(kAlone, {"--width", "48"});
  CHECK(e.params == 48 * 48 + 48);
  CHECK(whats(e).empty());
  // click 8.2+ names `warmup_cmd` `warmup`; `warmup-cmd` (click 7.0-8.1) is taken too.
  e = run(kAlone, {"warm"});
  CHECK(whats(e) == std::vector<std::string>{
                        "the click group `main`: the command `warm` of the run's command line is not one of its "
                        "commands (noop, warmup) [blocking]"});
  for (std::string_view word : {"warmup", "warmup-cmd"}) {
    e = run(kAlone, {std::string(word)});
    CHECK(!e.model_found);
    for (const std::string& u : whats(e)) CHECK(u.find("click group") == std::string::npos);
  }
}
