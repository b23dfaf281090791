// Arrays read from files the interpreter never opens (memory/interp/
// file_arrays.cpp): np.memmap / np.fromfile token files, the batches their
// slices give at indices drawn by torch.randint or np.random.randint, and
// the reason named for every slice whose length is not decided. A false
// `assert` ends the run before its step, so `phases.size() == 1` checks
// every assert of a script held.
#include <doctest/doctest.h>

#include <algorithm>

#include "test/memory/memory_test_util.h"

using namespace tpf;

namespace {

memory::Estimate est(std::string_view code) {
  static std::vector<std::unique_ptr<test::Script>> keep;  // the IR must outlive the estimate
  keep.push_back(test::load_script_text("<test>.py", std::string(code)));
  memory::EstimateOptions opt;
  opt.target = test::target("a100-80gb");
  opt.suggest = false;
  return memory::estimate(keep.back()->ir, opt);
}

/// The unknowns' texts, one a line (for CAPTURE).
std::string unknowns(const memory::Estimate& e) {
  std::string out;
  for (const auto& u : e.config.unknowns)
    out += u.what + " (line " + std::to_string(u.line) + ")\n";
  return out;
}

bool has_unknown(const memory::Estimate& e, std::string_view text) {
  return std::any_of(e.config.unknowns.begin(), e.config.unknowns.end(),
                     [&](const auto& u) { return u.what.find(text) != std::string::npos; });
}

// A model and one step on `x`, after the script's asserts.
constexpr std::string_view kStep = R"(
model = nn.Sequential(nn.Embedding(512, 16), nn.Linear(16, 512)).cuda()
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for it in range(100):
    x, y = get_batch()
    loss = nn.functional.cross_entropy(model(x).view(-1, 512), y.reshape(-1))
    loss.backward()
    opt.step()
)";

}  // namespace

TEST_CASE(
    "file arrays: windows of an np.memmap at torch.randint indices are the (batch, block) batch") {
  // Offsets on both sides of the index (`i + 1` to `i + 1 + block`): the
  // window is `block` long whatever `i` is. uint16 ids, 2 bytes each,
  // become int64 after astype.
  memory::Estimate e = est(std::string(R"(
import numpy as np
import torch
import torch.nn as nn

batch_size = 6
block_size = 48

def get_batch():
    data = np.memmap("tokens/train.bin", dtype=np.uint16, mode="r")
    ix = torch.randint(len(data) - block_size - 1, (batch_size,))
    assert data[0:8].itemsize == 2
    x = torch.stack([torch.from_numpy(data[i : i + block_size].astype(np.int64)) for i in ix])
    y = torch.stack([torch.from_numpy(data[i + 1 : i + 1 + block_size].astype(np.int64)) for i in ix])
    assert x.shape == (6, 48) and y.shape == (6, 48)
    assert x.dtype == torch.int64
    return x.pin_memory().to("cuda", non_blocking=True), y.to("cuda")
)") + std::string(kStep));
  CAPTURE(unknowns(e));
  CHECK(e.params == 512 * 16 + 16 * 512 + 512);
  CHECK(e.phases.size() == 1);
  CHECK(!e.step_synthesized);
  CHECK(e.config.unknowns.empty());
  CHECK(*e.config.batch_size.value == 6);
  CHECK(*e.config.seq_len.value == 48);
  // The stacked comprehension over the (batch_size,) indices keeps the
  // batch symbol: the embedding saves its (B, T) int64 ids.
  bool ids = false;
  for (const auto& r : e.layers) ids = ids || (r.module.ends_with(".0") && r.formula == "B*T*8");
  CHECK(ids);
}

TEST_CASE("file arrays: shape= and count= give the length; a known stop past it is clipped") {
  // np.frombuffer of a file read whole is llm.c's shard: unknown length, a
  // window of known int bounds `[pos : pos + B*T + 1]`.
  memory::Estimate e = est(std::string(R"(
import numpy as np
import torch
import torch.nn as nn

fixed = np.memmap("ids.i32", dtype="int32", mode="r", shape=(1000,))
assert len(fixed) == 1000
assert fixed[990:1010].shape == (10,)
assert fixed[-10:].shape == (10,)
assert fixed[:].nbytes == 4000
floats = np.fromfile("weights.f32", dtype=np.float32, count=64)
assert floats[8:].shape == (56,)
assert floats[0:4].itemsize == 4
assert np.fromfile("raw.bin")[0:4].itemsize == 8
assert np.memmap("raw.bin")[0:4].itemsize == 1
assert np.array(fixed[0:4], dtype=np.int64).itemsize == 8
assert np.asarray(fixed[0:4]).nbytes == 16
with open("shard.bin", "rb") as f:
    header = np.frombuffer(f.read(256 * 4), dtype=np.int32, count=256)
    shard = np.frombuffer(f.read(), dtype=np.uint16)
assert len(header) == 256
assert shard[0 : 4 * 32 + 1].shape == (129,)

def get_batch():
    ix = np.random.randint(0, 900, size=4)
    w = np.stack([fixed[k : k + 33] for k in ix]).astype(np.int64)
    assert w.shape == (4, 33)
    assert np.stack([fixed[0:3], fixed[3:6]], axis=1).shape == (3, 2)
    t = torch.from_numpy(w)
    return t[:, :-1], t[:, 1:]
)") + std::string(kStep));
  CAPTURE(unknowns(e));
  CHECK(e.phases.size() == 1);
  CHECK(!e.step_synthesized);
  CHECK(e.config.unknowns.empty());
}

TEST_CASE(
    "file arrays: a slice whose length is not decided is unknown, and the estimate says why") {
  struct Case {
    const char*
        slice;  ///< the body of get_batch's window, `data` an np.memmap, `i`/`j` randint elements
    const char* why;
  };
  const Case cases[] = {
      {"data[i:]", "runs to the end of the file, whose length is unknown"},
      {"data[i : j + 8]",
       "its bounds are not one index plus known offsets, so its length is not known"},
      {"data[k : k + 8]", "its start is not a known int nor a tensor index plus a known offset"},
      {"data[0:16:2]", "its step is not 1"},
      {"data[-16:-8]", "a negative bound counts from the end of the file, whose length is unknown"},
      {"data[i + 8 : i + 8]", "it is empty (0 elements)"},
      {"shifted(i)", "its bounds are not one index plus known offsets"},
      {"odd[i : i + 8]", "the array's dtype is not known"},
      {"odd[i : i + 8]", "the dtype of `np.memmap`, a value the estimator does not know"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.slice);
    memory::Estimate e = est(std::string(R"(
import random
import numpy as np
import torch
import torch.nn as nn

batch_size = 4
seq_len = 8
data = np.memmap("train.bin", dtype=np.uint16, mode="r")
odd = np.memmap("train.bin", dtype=random.choice([np.uint16, np.int32]), mode="r")

def shifted(i):
    stop = i + 8
    i *= 2          # `stop` was taken from the old `i`
    return data[i:stop]

def get_batch():
    ix = torch.randint(len(data) - 8, (batch_size,))
    j = ix[0]
    k = random.randint(0, 1000)
    x = torch.stack([torch.from_numpy()") +
                             c.slice + R"(.astype(np.int64)) for i in ix])
    return x, x
)" + std::string(kStep));
    CAPTURE(unknowns(e));
    CHECK(has_unknown(e, std::string("a slice of the file array `np.memmap` (line ")));
    CHECK(has_unknown(e, c.why));
    // The script's step runs on an input synthesized in place of the unknown batch.
    CHECK(has_unknown(e, "model input synthesized from the batch size and the first layer"));
    CHECK(e.phases.size() == 1);
  }
}

TEST_CASE("file arrays: the truth of a file array is unknown, never True") {
  // What torch.load read may be an empty dict or a tensor of many elements
  // (whose truth raises); an np.memmap's truth is its one element's. The
  // interpreter must not take `if ckpt:` as given (the branch it then
  // follows is a guess: a width of 64 would be the True branch).
  for (const char* load :
       {"torch.load(\"ckpt.pt\")", "np.memmap(\"flag.bin\", dtype=np.uint8, mode=\"r\")"}) {
    CAPTURE(load);
    memory::Estimate e = est(std::string(R"(
import numpy as np
import torch
import torch.nn as nn

ckpt = )") + load + R"(
width = 64 if ckpt else 32
model = nn.Linear(width, width).cuda()
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for it in range(10):
    model(torch.randn(8, width, device="cuda")).sum().backward()
    opt.step()
)");
    CHECK(e.params != 64 * 64 + 64);
  }
}

TEST_CASE(
    "file arrays: a tensor sliced at an index tensor has the window's length, never the whole "
    "dim") {
  // The same windows cut from a tensor of known length (ids already on the
  // device): `ids[i : i + block_size + 1]` is block_size + 1 long; before,
  // an index tensor as a bound read as no bound, so each window was the
  // whole 5000.
  memory::Estimate e = est(std::string(R"(
import torch
import torch.nn as nn

batch_size = 8
block_size = 32
ids = torch.arange(5000, device="cuda")

def get_batch():
    ix = torch.randint(ids.numel() - block_size - 1, (batch_size,))
    w = torch.stack([ids[i : i + block_size + 1] for i in ix])
    assert w.shape == (8, 33)
    return w[:, :-1], w[:, 1:]
)") + std::string(kStep));
  CAPTURE(unknowns(e));
  CHECK(e.phases.size() == 1);
  CHECK(e.config.unknowns.empty());
  // A bound that is an index and one that is not: unknown, said so.
  memory::Estimate tail = est(std::string(R"(
import torch
import torch.nn as nn

batch_size = 8
seq_len = 32
ids = torch.arange(5000, device="cuda")

def get_batch():
    ix = torch.randint(4000, (batch_size,))
    w = torch.stack([ids[i:] for i in ix])
    return w, w
)") + std::string(kStep));
  CAPTURE(unknowns(tail));
  CHECK(has_unknown(tail,
                    "a slice of a tensor with an index tensor for a bound: one bound is an "
                    "index tensor, the other is not, so its length is not known"));
}
