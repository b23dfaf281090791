// Calibration of the allocator and context constants (memory/sim/model.cpp,
// memory/sim/context.def) against the published end-to-end peaks issue 5
// lists (reserved memory + CUDA context on a T4, AdamW with fp16 AMP):
//   GPT-2 124M   batch 4 x 128: 3.18e9 B   batch 8 x 256: 6.23e9 B
//   bert-base    batch 4 x 128: 2.62e9 B   batch 8 x 256: 3.63e9 B
// The scripts are test/golden/memory/{gpt2,bert}_t4.py; each point must be
// within 10%.
#include <doctest/doctest.h>

#include <cmath>

#include "test/memory/memory_test_util.h"

using namespace tpf;

TEST_CASE("calibration: published T4 peaks of GPT-2 and bert-base within 10%") {
  struct Point {
    const char* script;
    int64_t batch, seq;
    double published;
  } points[] = {
      {"gpt2_t4.py", 4, 128, 3.18e9},
      {"gpt2_t4.py", 8, 256, 6.23e9},
      {"bert_t4.py", 4, 128, 2.62e9},
      {"bert_t4.py", 8, 256, 3.63e9},
  };
  std::filesystem::path dir = test::memory_test_dir("golden/memory");
  REQUIRE(!dir.empty());
  for (const Point& p : points) {
    auto s = test::load_script(dir / p.script);
    memory::EstimateOptions o;
    o.target = test::target("t4");
    o.batch_size = p.batch;
    o.seq_len = p.seq;
    o.suggest = false;
    memory::Estimate e = memory::estimate(s->ir, o);
    double err = std::fabs(static_cast<double>(e.peak_bytes) - p.published) / p.published;
    CAPTURE(p.script);
    CAPTURE(p.batch);
    CAPTURE(p.seq);
    CHECK_MESSAGE(err <= 0.10, "peak " << e.peak_bytes << " vs published " << p.published << " ("
                                        << 100 * err << "% off)");
    // The published figure lies inside the interval.
    CHECK(static_cast<double>(e.peak_low_bytes) <= p.published * 1.06);
    CHECK(static_cast<double>(e.peak_high_bytes) >= p.published);
  }
}
