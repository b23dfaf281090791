#!/usr/bin/env python3
"""Whole-project analysis (issue 16) on the fixture projects of test/projects.

Each case runs the driver from the script's folder and compares with a
golden file next to the script: `<script>.imports` (--dump-facts=imports),
`<script>.out` (the findings, concise, and the estimate for --target h100).
Set TPF_UPDATE_GOLDEN=1 to rewrite the goldens. Exact byte comparison.
"""
import json
import os
import subprocess
import sys
import unittest

TPF = os.path.abspath(sys.argv.pop(1))
HERE = os.path.dirname(os.path.abspath(__file__))
UPDATE = os.environ.get("TPF_UPDATE_GOLDEN") == "1"

# (folder of the script, script, extra arguments of the findings run)
CASES = [
    ("flat_model", "train.py"),
    ("pkg_layout/scripts", "train.py"),
    ("pkg_layout/src/diffuse", "trainer.py"),
    ("foreign_model", "train.py"),
    ("foreign_methods", "sweep.py"),
    ("init_by_name", "fit.py"),
    ("foreign_modeless", "train.py"),
    ("saved_by_helper", "train.py"),
    ("saved_under_namespace", "train.py"),
    ("lit_style", "train.py"),
    ("lit_style", "lora_ptl.py"),
    ("star_import", "evaluate.py"),
    ("foreign_eval", "train.py"),
    ("legacy_volatile", "evaluate.py"),
    ("hooked_trainer/runs", "sum_digits.py"),
    ("timed_metrics", "train.py"),
    ("ema_eval", "train.py"),
    ("saved_by_sibling", "evaluate.py"),
    ("saved_by_sibling", "distill.py"),
]


def run(cwd, *args):
    p = subprocess.run([TPF, "--isolated", *args], cwd=cwd, capture_output=True, text=True, timeout=60)
    return p.returncode, p.stdout, p.stderr


class Projects(unittest.TestCase):
    def check_golden(self, path, text):
        if UPDATE:
            with open(path, "w") as f:
                f.write(text)
        with open(path) as f:
            self.assertEqual(text, f.read(), path)

    def test_module_graphs(self):
        for folder, script in CASES:
            cwd = os.path.join(HERE, folder)
            rc, out, err = run(cwd, "--dump-facts=imports", script)
            self.assertEqual(rc, 0, err)
            self.check_golden(os.path.join(cwd, script + ".imports"), out)

    def test_results(self):
        for folder, script in CASES:
            cwd = os.path.join(HERE, folder)
            rc, out, err = run(cwd, "--format", "concise", "--target", "h100", script)
            self.check_golden(os.path.join(cwd, script + ".out"), out + err)

    def test_helpers_in_other_modules(self):
        # The zero-grad helper of optim_util.py clears the gradients...
        cwd = os.path.join(HERE, "pkg_layout/src/diffuse")
        rc, out, _ = run(cwd, "--format", "concise", "trainer.py")
        self.assertNotIn("TPF003", out)
        # ...which the file alone cannot see.
        rc, out, _ = run(cwd, "--format", "concise", "--no-follow-imports", "trainer.py")
        self.assertIn("trainer.py:17:13: error TPF003", out)
        # An evaluation loop of utils.py called without no_grad: at the call, naming it.
        cwd = os.path.join(HERE, "flat_model")
        rc, out, _ = run(cwd, "--format", "concise", "train.py")
        self.assertIn("train.py:24:11: error TPF002", out)
        self.assertIn("via utils.evaluate (utils.py:9)", out)
        rc, out, _ = run(cwd, "--format", "concise", "--no-follow-imports", "train.py")
        self.assertNotIn("TPF002", out)

    def test_models_of_other_modules(self):
        # What net.py's classes and helpers return is read there: the softmax
        # ending net.Classifier.forward, the undivided mean loss of net.LM and
        # net.calc_loss; net.Scores and net.mean_loss (divided) stay silent.
        cwd = os.path.join(HERE, "foreign_model")
        rc, out, _ = run(cwd, "--format", "concise", "train.py")
        self.assertIn("train.py:17:19: error TPF006 `model()` runs `net.Classifier.forward` (net.py:15), "
                      "which ends in softmax", out)
        self.assertIn("train.py:44:13: error TPF004", out)
        self.assertIn("train.py:68:13: error TPF004", out)
        self.assertEqual(out.count(" TPF"), 3, out)
        # The file alone cannot see into net.py: nothing is claimed.
        rc, out, _ = run(cwd, "--format", "concise", "--no-follow-imports", "train.py")
        self.assertNotIn("TPF006", out)
        self.assertNotIn("TPF004", out)

    def test_torch_through_star_imports(self):
        # torch reaches evaluate.py only through `from shared import *` (which
        # star-imports common.py): `torch.no_grad()` and `no_grad()` are the
        # library's, so only the loop outside them is reported (issue 17).
        cwd = os.path.join(HERE, "star_import")
        rc, out, _ = run(cwd, "--format", "concise", "evaluate.py")
        self.assertIn("evaluate.py:29:11: error TPF002", out)
        self.assertEqual(out.count(" TPF"), 1, out)
        # The file alone cannot know what `torch` is: the no_grad loop is reported too.
        rc, out, _ = run(cwd, "--format", "concise", "--no-follow-imports", "evaluate.py")
        self.assertIn("evaluate.py:12:15: error TPF002", out)

    def test_host_reads_in_other_modules(self):
        # scores.DepthScore.measure reads the prediction with float() on
        # every path: the timing synchronizes of the step wait for nothing
        # that read would not (issue 17, review 21's sparse-to-dense).
        cwd = os.path.join(HERE, "timed_metrics")
        rc, out, _ = run(cwd, "--format", "concise", "train.py")
        self.assertNotIn("TPF009", out)
        # The file alone does not see the read: both are reported.
        rc, out, _ = run(cwd, "--format", "concise", "--no-follow-imports", "train.py")
        self.assertIn("train.py:18:9: warning TPF009", out)
        self.assertIn("train.py:25:9: warning TPF009", out)

    def test_frozen_ema_copy(self):
        # timm's ModelEma copy has every parameter frozen: recalibrating it
        # through stats.recalibrate records no graph; the trained model does.
        cwd = os.path.join(HERE, "ema_eval")
        rc, out, _ = run(cwd, "--format", "concise", "train.py")
        self.assertIn("train.py:26:5: error TPF002", out)
        self.assertEqual(out.count(" TPF002"), 1, out)

    def test_eval_helpers_of_other_modules(self):
        # validation.validate evals only its parameter: the generator passed
        # there decides. Weight-normed convolutions and LeakyReLU have no
        # mode (silent); a dropout does (line 42); a generator no call passes
        # is not known (line 16). The writer argument is no model.
        cwd = os.path.join(HERE, "foreign_eval")
        rc, out, _ = run(cwd, "--format", "concise", "train.py")
        self.assertIn("train.py:16:13: error TPF008", out)
        self.assertIn("train.py:42:13: error TPF008", out)
        self.assertEqual(out.count(" TPF008"), 2, out)

    def test_checkpoints_saved_by_imported_helpers(self):
        # ckpt_io's helpers write under the folder they are given (--save,
        # --out): reloading from there is the script's own checkpoint. Only the
        # load from --load_from, which nothing saves to, is flagged.
        cwd = os.path.join(HERE, "saved_by_helper")
        rc, out, _ = run(cwd, "--format", "concise", "train.py")
        self.assertIn("train.py:29:27: warning TPF020", out)
        self.assertEqual(out.count(" TPF020"), 1, out)
        # The file alone cannot see where the helpers save: each load is flagged.
        rc, out, _ = run(cwd, "--format", "concise", "--no-follow-imports", "train.py")
        self.assertEqual(out.count(" TPF020"), 5, out)
        # snapshots.write_snapshot takes the whole namespace and writes under
        # its snap_dir: the --restart and --keep_last loads read those files;
        # only --teacher, which nothing writes, is flagged.
        cwd = os.path.join(HERE, "saved_under_namespace")
        rc, out, _ = run(cwd, "--format", "concise", "train.py")
        self.assertIn("train.py:27:25: warning TPF020", out)
        self.assertEqual(out.count(" TPF020"), 1, out)
        rc, out, _ = run(cwd, "--format", "concise", "--no-follow-imports", "train.py")
        self.assertEqual(out.count(" TPF020"), 3, out)

    def test_estimates_see_imported_models(self):
        cwd = os.path.join(HERE, "flat_model")
        rc, out, _ = run(cwd, "--target", "h100", "train.py")
        self.assertIn("parameters   776,168 (776,168 trainable)", out)
        rc, out, _ = run(cwd, "--target", "h100", "--no-follow-imports", "train.py")
        self.assertIn("no model found", out)

    def test_named_model_configs_in_litgpt_style(self):
        # Config.from_name over the package's own list of dicts (some made in a
        # loop with str.format), sizes derived in __post_init__ (find_multiple),
        # classes picked through properties (a function-local `import pkg.mod`
        # and getattr), a property setter that builds the rotary cache
        # (torch.outer). Counts by hand: tiny-neox 131,072 (lm_head 128x1024)
        # + 131,072 (wte) + 256 (ln_f) + 2 x 198,272 (blocks) = 658,944.
        cwd = os.path.join(HERE, "lit_style")
        rc, out, _ = run(cwd, "--target", "h100", "train.py")
        self.assertIn("parameters   658,944 (658,944 trainable)", out)
        self.assertIn("peak                0.61 GiB", out)  # the simulated step (issue 19)
        # LoRA over a named config (litgpt's lora.Config subclasses Config and
        # adds lora_* fields; tutorials/examples/ptl-trainer): the named sizes
        # stay (18,462,464, as above, not Config's defaults), and only the
        # adapters train: 3 x (lora_A 8x256 + lora_B 256x8) = 12,288.
        rc, out, _ = run(cwd, "--target", "h100", "lora_ptl.py")
        self.assertIn("parameters   18,474,752 (12,288 trainable)", out)
        self.assertIn('precision    bfloat16 (line 35, Trainer(precision="bf16-true"))', out)
        # The package's command line (`python -m minigpt pretrain ...`, as
        # `litgpt pretrain --model_name NAME`): jsonargparse.CLI of a dict.
        # tiny-llama: 2 x 8,192,000 (lm_head, wte 256x32000) + 256 (RMSNorm)
        # + 3 x 692,736 (GQA qkv 256x384, proj 256x256, LLaMA MLP 3 x 256x688) = 18,462,464.
        rc, out, _ = run(cwd, "--target", "h100", "minigpt/__main__.py", "--", "pretrain", "--model_name",
                         "tiny-llama")
        self.assertIn("parameters   18,462,464 (18,462,464 trainable)", out)
        self.assertIn(" fits", out)
        # The org/name form, positionally; a dataclass field of an argument.
        rc, out, _ = run(cwd, "--target", "h100", "minigpt/__main__.py", "--", "pretrain", "acme/tiny-llama-hf",
                         "--train.micro_batch_size", "2")
        self.assertIn("parameters   18,462,464 (18,462,464 trainable)", out)
        self.assertIn("batch size   2 (line 9, argv --train.micro_batch_size 2)", out)
        # The required model name left out: named, and no default model guessed.
        rc, out, _ = run(cwd, "--target", "h100", "minigpt/__main__.py", "--", "pretrain")
        self.assertIn("the required argument `--model_name` is not given: pass it after `--`", out)
        self.assertIn("verdict             ? unknown", out)
        # The module alone has no entry point: the package's command line is named.
        rc, out, _ = run(cwd, "--target", "h100", "minigpt/pretrain.py")
        self.assertIn("no model found: the script has no `if __name__ == \"__main__\":` block and builds no model "
                      "at its top level; its package runs it through minigpt/__main__.py (`python -m minigpt`)", out)
        rc, out, _ = run(cwd, "--target", "h100", "minigpt/__main__.py")
        self.assertIn("no subcommand `{pretrain}` is given: pass one after `--` "
                      "(`tpf-analyze ... SCRIPT -- pretrain`)", out)

    def test_exec_config_files_and_overrides(self):
        # exec(open("overrides.py").read()) runs in train.py's namespace: the config
        # file it names and the --name=value overrides replace the module's settings.
        cwd = os.path.join(HERE, "exec_config")
        rc, out, _ = run(cwd, "--target", "h100", "train.py")
        self.assertIn("parameters   4,464,896 (4,464,896 trainable)", out)  # torch: 4,464,896
        self.assertIn("batch size   64 (line 11, batch_size = ...)", out)
        rc, out, _ = run(cwd, "--target", "h100", "train.py", "--", "configs/wide.py")
        self.assertIn("parameters   17,318,144 (17,318,144 trainable)", out)  # hidden 1024: torch 17,318,144
        self.assertIn("batch size   16 (line 12, configs/wide.py (exec) (was 64, line 11))", out)
        rc, out, _ = run(cwd, "--target", "h100", "train.py", "--", "configs/wide.py", "--batch_size=24", "--layers=1")
        self.assertIn("parameters   8,921,344 (8,921,344 trainable)", out)  # one LSTM layer
        self.assertIn("batch size   24 (line 12, argv --batch_size=24 (via globals()) (was 16, line 12))", out)
        # tpf-analyze's own --batch-size wins over the script's overrides.
        rc, out, _ = run(cwd, "--target", "h100", "--batch-size", "8", "train.py", "--", "--batch_size=24")
        self.assertIn("batch size   8 (", out)
        # Never a file outside the project: named, not run.
        import tempfile
        with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as f:
            f.write("hidden = 4096\n")
        try:
            rc, out, _ = run(cwd, "--target", "h100", "train.py", "--", f.name)
        finally:
            os.unlink(f.name)
        self.assertIn("parameters   4,464,896 ", out)
        self.assertIn(f'`exec(open("{f.name}").read())` is not run: outside the project', out)
        # Without the project, exec is not followed, and says so.
        rc, out, _ = run(cwd, "--target", "h100", "--no-follow-imports", "train.py", "--", "configs/wide.py")
        self.assertIn("parameters   4,464,896 ", out)
        self.assertIn('`exec(open("overrides.py").read())` is not run: the script\'s project is not followed', out)

    def test_nanogpt_configurator_overrides_batch_window_and_accumulation(self):
        # nanoGPT's train.py: exec(open('configurator.py').read()) runs the config file
        # named after `--` and then --key=value arguments in train.py's globals; the
        # batch, the window (block_size, the seq len) and gradient_accumulation_steps
        # that reach the loop are the overridden ones, and so is the model they size.
        cwd = os.path.join(HERE, "nanogpt_configurator")
        rc, out, _ = run(cwd, "--target", "h100", "train.py")
        self.assertIn("parameters   124,373,760 (124,373,760 trainable)", out)  # torch 1.13: 124,373,760
        self.assertIn("batch size   12 (line 14, batch_size = ...)", out)
        self.assertIn("seq len      1024 (line 15, block_size = ...)", out)
        self.assertIn("grad accum   40 (line 16, gradient_accumulation_steps = ...)", out)
        rc, out, _ = run(cwd, "--target", "h100", "train.py", "--", "config/train_char.py")
        self.assertIn("parameters   30,036,864 (30,036,864 trainable)", out)  # torch 1.13: 30,036,864
        self.assertIn("batch size   64 (line 27, config/train_char.py (exec) (was 12, line 14))", out)
        self.assertIn("seq len      256 (line 27, config/train_char.py (exec) (was 1024, line 15))", out)
        self.assertIn("grad accum   1 (line 27, config/train_char.py (exec) (was 40, line 16))", out)
        rc, out, _ = run(cwd, "--target", "h100", "train.py", "--", "config/train_char.py", "--batch_size=32",
                         "--block_size=512", "--gradient_accumulation_steps=4")
        self.assertIn("parameters   30,135,168 (30,135,168 trainable)", out)  # wpe 512 rows: torch 1.13: 30,135,168
        self.assertIn("batch size   32 (line 27, argv --batch_size=32 (via globals()) (was 64, line 27))", out)
        self.assertIn("seq len      512 (line 27, argv --block_size=512 (via globals()) (was 256, line 27))", out)
        self.assertIn("grad accum   4 (line 27, argv --gradient_accumulation_steps=4 (via globals()) "
                      "(was 1, line 27))", out)

    def test_hydra_main_composes_groups_and_overrides(self):
        # @hydra.main(config_path="conf", config_name="train") over train(cfg), called
        # as train(): the defaults list puts conf/model/<option>.yaml under cfg.model and
        # conf/data/cifar.yaml under cfg.data; the primary's own keys come last (_self_),
        # so its data.batch_size 96 wins over the group's 64. The command line picks
        # a group's option and replaces values; hydra's own options are left.
        cwd = os.path.join(HERE, "hydra_groups")
        rc, out, _ = run(cwd, "--target", "h100", "run.py")
        self.assertIn("parameters   620,810 (620,810 trainable)", out)  # torch 1.13: 620,810
        self.assertIn("batch size   96 (line 42, conf/train.yaml: batch_size (was 64, line 42))", out)
        self.assertIn("image size   32 (line 42, conf/data/cifar.yaml: image_size)", out)
        rc, out, _ = run(cwd, "--target", "h100", "run.py", "--", "model=conv_wide", "data.batch_size=256",
                         "+optim.betas=[0.9,0.95]", "hydra.run.dir=/tmp/x", "--multirun")
        self.assertIn("parameters   7,136,778 (7,136,778 trainable)", out)  # torch 1.13: 7,136,778
        self.assertIn("batch size   256 (line 42, argv data.batch_size=256 (was 96, line 42))", out)
        self.assertNotIn("not applied", out)
        rc, out, _ = run(cwd, "--target", "h100", "run.py", "--", "dropout=0.1", "model=conv_huge")
        self.assertIn("unknown      hydra config `conf/model/conv_huge.yaml` is not found "
                      "(the folder has: conv_small, conv_wide) (line 42)", out)
        self.assertIn("argument `dropout=0.1` of the run's command line overrides a key the composed config "
                      "does not have (hydra would stop: append with `+dropout=0.1`): not applied", out)
        self.assertIn("verdict             ? unknown", out)
        # A config with no defaults list is the whole config (`_self_` alone).
        rc, out, _ = run(cwd, "--target", "h100", "flat.py")
        self.assertIn("parameters   591,360 (591,360 trainable)", out)  # 4 x Linear(384, 384)
        self.assertIn("batch size   48 (line 19, conf/flat.yaml: batch)", out)
        rc, out, _ = run(cwd, "--target", "h100", "flat.py", "--", "width=512", "batch=16")
        self.assertIn("parameters   1,050,624 (1,050,624 trainable)", out)  # 4 x Linear(512, 512)
        self.assertIn("batch size   16 (line 19, argv batch=16 (was 48, line 19))", out)

    def test_hydra_instantiate_builds_the_target(self):
        # hydra.utils.instantiate(cfg.net): `_target_` names a class of a project module
        # no import statement names (nets.mlp.ResidualMLP), loaded when instantiate runs;
        # the nested `norm` config (torch.nn.LayerNorm) is instantiated first and passed in.
        cwd = os.path.join(HERE, "hydra_groups")
        rc, out, _ = run(cwd, "--target", "h100", "targets.py")
        self.assertIn("parameters   1,576,960 (1,576,960 trainable)", out)  # torch 1.13: 1,576,960 (one shared norm)
        self.assertIn("batch size   40 (line 20, conf/targets.yaml: batch)", out)
        rc, out, _ = run(cwd, "--target", "h100", "targets.py", "--", "net.depth=2")
        self.assertIn("parameters   526,336 (526,336 trainable)", out)  # torch 1.13: 526,336

    def test_torchtune_recipe_config_parse_and_instantiate(self):
        # @config.parse over recipe_main(cfg), called as recipe_main(): `--config FILE`
        # is the YAML; config.instantiate(cfg.model) imports the `_component_` path
        # (models.tiny.tiny_decoder, a module no import names) and calls it with the
        # node's keys; config.instantiate(cfg.optimizer, params) adds the positional.
        # The builder runs under a @contextlib.contextmanager that sets the default
        # dtype (bf16 weights). key=value overrides replace a value; `model=PATH`
        # over a node with a `_component_` replaces its component (torchtune's rule).
        cwd = os.path.join(HERE, "tune_recipe")
        rc, out, _ = run(cwd, "--target", "h100", "recipe.py", "--", "--config", "configs/small.yaml")
        self.assertIn("parameters   520,192 (520,192 trainable)", out)  # torch 1.13: 520,192
        self.assertIn("batch size   6 (line 43, configs/small.yaml: batch_size)", out)
        self.assertIn("seq len      64 (line 43, configs/small.yaml: seq_len)", out)
        self.assertIn("precision    bfloat16 (line 21, torch.set_default_dtype(torch.bfloat16))", out)
        self.assertIn("optimizer    AdamW (line 23, torch.optim.AdamW)", out)
        self.assertIn("verdict             \u2713 fits", out)
        rc, out, _ = run(cwd, "--target", "h100", "recipe.py", "--", "--config=configs/small.yaml", "model.layers=4",
                         "batch_size=3")
        self.assertIn("parameters   784,128 (784,128 trainable)", out)  # torch 1.13: 784,128
        self.assertIn("batch size   3 (line 43, argv batch_size=3 (was 6, line 43))", out)
        rc, out, _ = run(cwd, "--target", "h100", "recipe.py", "--", "--config", "configs/small.yaml",
                         "model=models.tiny.wide_decoder", "dtype=fp32")
        self.assertIn("parameters   1,564,672 (1,564,672 trainable)", out)  # torch 1.13: 1,564,672
        self.assertIn("precision    float32\n", out)
        # What torchtune's parser refuses stops the run, and the report says why.
        rc, out, _ = run(cwd, "--target", "h100", "recipe.py")
        self.assertIn("unknown      the recipe needs `--config FILE` on the run's command line (after `--`) "
                      "(line 43)", out)
        rc, out, _ = run(cwd, "--target", "h100", "recipe.py", "--", "--config", "configs/small.yaml", "--lr", "3")
        self.assertIn("unknown      argument `--lr` of the run's command line: torchtune's parser takes only "
                      "--config and key=value overrides (it raises ValueError) (line 43)", out)
        rc, out, _ = run(cwd, "--target", "h100", "recipe.py", "--", "--config", "configs/none.yaml")
        self.assertIn("unknown      the recipe's config `configs/none.yaml` is not read: the run has no config "
                      "(line 43)", out)
        self.assertIn("verdict             ? unknown", out)

    def test_config_files_named_on_the_command_line(self):
        # yaml.safe_load / json.load of open(args.config), OmegaConf.load: the
        # document's values size the model, and its batch and image keys are sources.
        cwd = os.path.join(HERE, "config_files")
        rc, out, _ = run(cwd, "--target", "h100", "train.py")
        self.assertIn("parameters   504,675 (504,675 trainable)", out)  # torch: 504,675
        self.assertIn("batch size   24 (line 22, configs/base.yaml: batch_size)", out)
        self.assertIn("image size   128 (line 22, configs/base.yaml: image_size)", out)
        rc, out, _ = run(cwd, "--target", "h100", "train.py", "--", "--config", "configs/big.json")
        self.assertIn("parameters   2,669,379 (2,669,379 trainable)", out)  # torch: 2,669,379
        self.assertIn("batch size   8 (line 22, configs/big.json: batch_size)", out)
        rc, out, _ = run(cwd, "--target", "h100", "train.py", "--", "--omegaconf")
        self.assertIn("parameters   504,675 (504,675 trainable)", out)
        self.assertIn("image size   128 (line 17, configs/base.yaml: image_size)", out)
        # Never a file outside the project.
        rc, out, _ = run(cwd, "--target", "h100", "train.py", "--", "--config", "../flat_model/train.py")
        self.assertIn("config file `../flat_model/train.py` is outside the analyzed project", out)
        self.assertIn("parameters   at least 3 ", out)
        rc, out, _ = run(cwd, "--target", "h100", "train.py", "--", "--config", "configs/none.yaml")
        self.assertIn("config file `configs/none.yaml` is not found; if a download or an earlier run writes it, analyze where it exists (line 22)", out)

    def test_hf_argument_parser_json_file(self):
        # parse_json_file(os.path.abspath(sys.argv[1])): the file's keys fill the dataclasses.
        cwd = os.path.join(HERE, "config_files")
        rc, out, _ = run(cwd, "--target", "h100", "finetune.py", "--", "configs/finetune.json")
        self.assertIn("parameters   49,184,000 (49,184,000 trainable)", out)  # width 768
        self.assertIn("batch size   12 (line 21, configs/finetune.json: per_device_train_batch_size)", out)
        self.assertIn("seq len      256 (line 21, configs/finetune.json: max_seq_length (was 128, line 15))", out)
        rc, out, _ = run(cwd, "--target", "h100", "finetune.py", "--", "--width", "512")
        self.assertIn("parameters   32,800,000 (32,800,000 trainable)", out)
        self.assertIn("batch size   8 (line 23, TrainingArguments default per_device_train_batch_size)", out)
        self.assertIn("seq len      128 (line 15, max_seq_length = ...)", out)

    def test_per_script_table_pins_the_run(self):
        # [tool.tpf.scripts."train.py"]: the script's arguments and settings, under
        # tpf-analyze's own command line.
        import tempfile, shutil
        with tempfile.TemporaryDirectory() as d:
            shutil.copytree(os.path.join(HERE, "exec_config"), d, dirs_exist_ok=True)
            with open(os.path.join(d, "pyproject.toml"), "a") as f:
                f.write('\n[tool.tpf]\ntarget = "t4"\n\n[tool.tpf.scripts."train.py"]\n'
                        'args = ["configs/wide.py", "--batch_size=24"]\ntarget = "a100"\n'
                        'seq-len = 2048\n')
            p = subprocess.run([TPF, "train.py"], cwd=d, capture_output=True, text=True, timeout=60)
            self.assertIn("on a100-40gb", p.stdout)  # the script's target over [tool.tpf]'s
            self.assertIn("parameters   17,318,144 ", p.stdout)
            self.assertIn("batch size   24 (line 12, argv --batch_size=24", p.stdout)
            # The command line wins: --target, and arguments after `--`.
            p = subprocess.run([TPF, "--target", "h100", "train.py", "--", "--batch_size=8"], cwd=d,
                               capture_output=True, text=True, timeout=60)
            self.assertIn("on h100", p.stdout)
            self.assertIn("parameters   4,464,896 ", p.stdout)
            self.assertIn("batch size   8 (", p.stdout)
            # A bad entry is an error with its place.
            with open(os.path.join(d, "pyproject.toml"), "a") as f:
                f.write('\n[tool.tpf.scripts."eval.py"]\nbatch = 3\n')
            p = subprocess.run([TPF, "train.py"], cwd=d, capture_output=True, text=True, timeout=60)
            self.assertEqual(p.returncode, 2, p.stderr)
            self.assertIn("pyproject.toml:14:1: unknown key `batch` in `scripts.\"eval.py\"` (expected args, "
                          "target, dtype, batch-size, seq-len or world-size)", p.stderr)

    def test_batch_is_the_loader_that_reaches_the_backward(self):
        # toolkit/engine.py's Engine trains with its own loader (Settings.batch_size
        # 48, a collate function of its own, so no tensor carries the setting's
        # symbol); the script's hooks draw held-out loaders of 500 (before the step,
        # between the engine's draw and its backward) and 250 (after it), both under
        # no_grad. The run's batch is the engine's: it was 250, the last loader drawn.
        cwd = os.path.join(HERE, "hooked_trainer/runs")
        rc, out, _ = run(cwd, "--target", "h100", "sum_digits.py")
        self.assertIn("parameters   151,753 (151,753 trainable)", out)  # torch 1.13: 151,753
        self.assertIn("batch size   48 (line 55, DataLoader(batch_size=...))\n", out)
        rc, out, _ = run(cwd, "--target", "h100", "--format", "json", "sum_digits.py")
        est = json.loads(out)["estimates"][0]
        self.assertEqual((est["params"], est["config"]["batch_size"]["value"]), (151753, 48))
        # --batch-size sizes that loader's batches.
        rc, out, _ = run(cwd, "--target", "h100", "--batch-size", "16", "sum_digits.py")
        self.assertIn("batch size   16 (line 55, --batch-size (was 48, DataLoader(batch_size=...)))", out)

    def test_survey_selects_scripts_that_train_through_project_modules(self):
        # tools/realcode/survey_estimates.py: runs/sum_digits.py calls no `.backward(`;
        # its step is toolkit/engine.py's, a module of its project it imports (as
        # tpf-analyze resolves it). engine.py itself is no script (no __main__
        # guard, no command line, no top-level loop statement).
        sys.path.insert(0, os.path.join(HERE, "..", "..", "tools", "realcode"))
        import survey_estimates as survey
        script = os.path.join(HERE, "hooked_trainer", "runs", "sum_digits.py")
        engine = os.path.join(HERE, "hooked_trainer", "toolkit", "engine.py")
        with open(script) as f:
            text = f.read()
        self.assertNotIn(".backward(", text)
        self.assertTrue(survey.is_script(text))
        self.assertEqual([os.path.relpath(m, os.path.join(HERE, "hooked_trainer"))
                          for m in survey.project_modules(TPF, script)],
                         ["toolkit/engine.py", "toolkit/nets.py", "toolkit/settings.py"])
        self.assertTrue(survey.trains(TPF, script, text))
        with open(engine) as f:
            self.assertFalse(survey.is_script(f.read()))
        # A docstring line that starts with "for " is no loop at the top level.
        self.assertFalse(survey.is_script('"""Helpers\nfor this set of tests."""\nimport torch\n'))
        self.assertTrue(survey.is_script("import torch\nfor step in range(3):\n    pass\n"))

    def test_config_turns_it_off(self):
        import tempfile, shutil
        with tempfile.TemporaryDirectory() as d:
            shutil.copytree(os.path.join(HERE, "flat_model"), d, dirs_exist_ok=True)
            with open(os.path.join(d, "pyproject.toml"), "a") as f:
                f.write("\n[tool.tpf]\nfollow-imports = false\n")
            p = subprocess.run([TPF, "--dump-facts=imports", "train.py"], cwd=d, capture_output=True, text=True)
            self.assertIn("imports are not followed", p.stdout)
            self.assertIn("not followed (follow-imports is off)", p.stdout)
            with open(os.path.join(d, "pyproject.toml"), "a") as f:
                f.write("follow-imports = 3\n")
            p = subprocess.run([TPF, "train.py"], cwd=d, capture_output=True, text=True)
            self.assertEqual(p.returncode, 2)

    def test_no_marker_uses_the_script_folder(self):
        import tempfile
        with tempfile.TemporaryDirectory() as d:
            with open(os.path.join(d, "helper.py"), "w") as f:
                f.write("X = 1\n")
            with open(os.path.join(d, "s.py"), "w") as f:
                f.write("import helper\nfrom .nothing import y\n")
            p = subprocess.run([TPF, "--isolated", "--dump-facts=imports", "s.py"], cwd=d, capture_output=True, text=True)
            self.assertIn("(no marker)", p.stdout)
            self.assertIn("1:7 import helper  ->  module helper (helper.py)", p.stdout)
            self.assertIn("2:21 from .nothing import y  ->  MISSING", p.stdout)


if __name__ == "__main__":
    unittest.main(verbosity=2)
