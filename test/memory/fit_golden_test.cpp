// Golden tests of --fit: memory golden scripts (test/golden/memory) and the
// bundled examples (examples/*.py) is judged on every target in-process (options
// from a first line `# tpf: batch-size=8 seq-len=256 dtype=bf16 sort=price`),
// rendered as text and JSON (one target row per line), and compared with
// <case>.fit (examples: test/golden/fit/examples_<name>.fit).
// TPF_UPDATE_GOLDEN=1 rewrites the expected files; review the diff.
#include <doctest/doctest.h>

#include <cstdlib>
#include <optional>
#include <sstream>

#include "test/memory/memory_test_util.h"
#include "tools/report_memory.h"

using namespace tpf;
namespace fs = std::filesystem;

namespace {

struct FitHeader {
  memory::EstimateOptions opt;
  tools::FitOrder order = tools::FitOrder::Size;
};

FitHeader parse_fit_header(const std::string& text) {
  FitHeader h;
  std::string first = text.substr(0, text.find('\n'));
  const std::string tag = "# tpf:";
  if (first.rfind(tag, 0) != 0) return h;
  std::istringstream words(first.substr(tag.size()));
  for (std::string w; words >> w;) {
    size_t eq = w.find('=');
    std::string k = w.substr(0, eq), v = eq == std::string::npos ? "" : w.substr(eq + 1);
    if (k == "batch-size") h.opt.batch_size = std::stoll(v);
    else if (k == "seq-len") h.opt.seq_len = std::stoll(v);
    else if (k == "dtype") h.opt.dtype = memory::parse_dtype(v);
    else if (k == "generate") {
      std::string why;
      h.opt.generate = memory::parse_generate(v, why);
      REQUIRE_MESSAGE(h.opt.generate, why);
    }
    else if (k == "sort" && v == "price") h.order = tools::FitOrder::Price;
    else if (k == "target" || k == "world-size" || k == "breakdown") continue;  // --fit judges every target
    else FAIL("unknown header option " << k);
  }
  return h;
}

/// The JSON with each target row on one line: reviewable, and a changed
/// row shows as one changed line.
std::string rows_per_line(const nlohmann::ordered_json& j) {
  std::string out = "{\n";
  size_t k = 0;
  for (auto it = j.begin(); it != j.end(); ++it, ++k) {
    out += "  \"" + it.key() + "\": ";
    if (it.value().is_array() && !it.value().empty() && it.value()[0].is_object()) {
      out += "[\n";
      for (size_t r = 0; r < it.value().size(); ++r)
        out += "    " + it.value()[r].dump() + (r + 1 < it.value().size() ? ",\n" : "\n");
      out += "  ]";
    } else {
      out += it.value().dump();
    }
    out += k + 1 < j.size() ? ",\n" : "\n";
  }
  return out + "}\n";
}

std::string render(const fs::path& p, const std::string& name, std::optional<tools::FitOrder> order = {}) {
  std::string text = test::read_file(p);
  FitHeader h = parse_fit_header(text);
  if (order) h.order = *order;
  auto s = test::load_script_text(name, text);
  memory::Fit f = memory::compute_fit(s->ir, h.opt);
  f.estimate.path = name;
  std::ostringstream out;
  tools::render_fit(out, f, h.order);
  out << "--- json ---\n" << rows_per_line(tools::fit_json(f, h.order));
  return out.str();
}

void compare(const fs::path& expected, const std::string& got) {
  if (std::getenv("TPF_UPDATE_GOLDEN")) {
    std::ofstream(expected, std::ios::binary) << got;
    return;
  }
  REQUIRE_MESSAGE(fs::exists(expected), "missing " << expected << " (run with TPF_UPDATE_GOLDEN=1)");
  CHECK_MESSAGE(got == test::read_file(expected),
                "--fit output differs from " << expected.filename().string() << " (TPF_UPDATE_GOLDEN=1 rewrites it)");
}

}  // namespace

TEST_CASE("golden: --fit on the fixtures") {
  // The memory goldens' own scripts (their `# tpf: target=` line is not
  // read: --fit judges every target), <name>.fit here; `_by_price` sorts
  // the instances by price.
  fs::path dir = test::memory_test_dir("golden/fit"), scripts = test::memory_test_dir("golden/memory");
  REQUIRE(!dir.empty());
  REQUIRE(!scripts.empty());
  struct Case {
    const char* script;
    const char* golden;
    tools::FitOrder order;
  };
  for (const Case& c : {Case{"gpt2_t4", "gpt2_t4", tools::FitOrder::Size},
                        Case{"llama7b_full_finetune", "llama7b_full_finetune", tools::FitOrder::Size},
                        Case{"llama7b_full_finetune", "llama7b_by_price", tools::FitOrder::Price},
                        Case{"fsdp_mixed_precision", "fsdp_mixed_precision", tools::FitOrder::Size},
                        Case{"timm_unknown", "timm_unknown", tools::FitOrder::Size},
                        Case{"llama_gqa_generate", "llama_gqa_generate", tools::FitOrder::Size},
                        Case{"gpt2_decode_loop", "gpt2_decode_loop", tools::FitOrder::Size}}) {
    CAPTURE(c.golden);
    fs::path p = scripts / (std::string(c.script) + ".py");
    compare(dir / (std::string(c.golden) + ".fit"), render(p, std::string(c.script) + ".py", c.order));
  }
}

TEST_CASE("golden: --fit on the bundled examples") {
  fs::path dir = test::memory_test_dir("golden/fit"), examples = test::memory_test_dir("../examples");
  REQUIRE(!dir.empty());
  REQUIRE(!examples.empty());
  int n = 0;
  for (const char* name : {"train.py", "good_train.py", "bad_train.py"}) {
    CAPTURE(name);
    REQUIRE(fs::exists(examples / name));
    std::string stem = fs::path(name).stem().string();
    compare(dir / ("examples_" + stem + ".fit"), render(examples / name, std::string("examples/") + name));
    ++n;
  }
  CHECK(n == 3);
}

TEST_CASE("fit: each GPU row is the estimate --target would give, to the byte") {
  // --fit judges one run's footprint per target; for a single GPU that must
  // equal interpreting the script with that --target (no world size, no
  // is_bf16_supported() read by these scripts).
  fs::path dir = test::memory_test_dir("golden/fit");
  REQUIRE(!dir.empty());
  fs::path scripts = test::memory_test_dir("golden/memory");
  for (const char* name : {"gpt2_t4.py", "llama7b_full_finetune.py", "gpt2_generate.py", "llama_gqa_generate.py"}) {
    CAPTURE(name);
    auto s = test::load_script(scripts / name);
    memory::Fit f = memory::compute_fit(s->ir, {});
    REQUIRE(f.judged);
    REQUIRE(f.gpus.size() == targets::gpus().size());
    for (const char* gpu : {"t4", "a10g", "h100", "mi300x"}) {
      CAPTURE(gpu);
      memory::EstimateOptions o;
      o.target = test::target(gpu);
      o.suggest = false;
      memory::Estimate e = memory::estimate(s->ir, o);
      auto row = std::find_if(f.gpus.begin(), f.gpus.end(), [&](auto& r) { return r.name == gpu; });
      REQUIRE(row != f.gpus.end());
      CHECK(row->peak_bytes == e.peak_bytes);
      CHECK(row->verdict == e.verdict);
    }
  }
}

TEST_CASE("fit: DDP from RANK in the environment is charged on multi-GPU instances only, as --target gives") {
  // nanoGPT's `ddp = int(os.environ.get('RANK', -1)) != -1`: `python
  // train.py` on one GPU takes no DDP; an 8-GPU instance is a torchrun
  // launch, whose DDP buckets are a second copy of the gradients.
  auto s = test::load_script_text("<fit-ddp>.py", R"(
import os
import torch, torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP
ddp = int(os.environ.get('RANK', -1)) != -1
model = nn.Sequential(nn.Linear(4096, 4096), nn.ReLU(), nn.Linear(4096, 4096)).cuda()
if ddp:
    model = DDP(model, device_ids=[int(os.environ['LOCAL_RANK'])])
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
for step in range(10):
    x = torch.randn(64, 4096, device='cuda')
    loss = model(x).pow(2).mean()
    loss.backward()
    optimizer.step()
    optimizer.zero_grad(set_to_none=True)
)");
  memory::Fit f = memory::compute_fit(s->ir, {});
  REQUIRE(f.judged);
  CHECK(!f.distributed);
  auto peak_for = [&](const char* target) {
    memory::EstimateOptions o;
    o.target = test::target(target);
    o.suggest = false;
    return memory::estimate(s->ir, o);
  };
  memory::Estimate one = peak_for("a100-40gb"), eight = peak_for("8xa100-40gb");
  CHECK(one.config.sharding == memory::Sharding::None);
  CHECK(eight.config.sharding == memory::Sharding::Ddp);
  CHECK(eight.components.gradients == 2 * one.components.gradients);
  auto gpu = std::find_if(f.gpus.begin(), f.gpus.end(), [](auto& r) { return r.name == "a100-40gb"; });
  auto p4d = std::find_if(f.instances.begin(), f.instances.end(), [](auto& r) { return r.name == "p4d.24xlarge"; });
  REQUIRE(gpu != f.gpus.end());
  REQUIRE(p4d != f.instances.end());
  REQUIRE(p4d->count == 8);
  CHECK(gpu->peak_bytes == one.peak_bytes);
  CHECK(p4d->peak_bytes == eight.peak_bytes);
  CHECK(p4d->peak_bytes > gpu->peak_bytes);
}
