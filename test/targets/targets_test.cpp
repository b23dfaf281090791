// Tests for targets/: exact bytes from the tables, alias and instance
// resolution, close-match suggestions, and the --list-targets text.
#include "targets/targets.h"

#include <doctest/doctest.h>

#include <set>
#include <string>

using namespace tpf::targets;

namespace {

const Target& resolve(const char* name) {
  static LookupResult last;
  last = lookup_target(name);
  REQUIRE_MESSAGE(last.ok(), name << ": " << last.error.message());
  return *last.target;
}

std::string error_for(const char* name) {
  LookupResult r = lookup_target(name);
  REQUIRE_FALSE(r.ok());
  return r.error.message();
}

}  // namespace

TEST_CASE("targets: table sizes and per-GPU invariants") {
  CHECK(gpus().size() == 33);
  CHECK(instances().size() == 85);
  for (const GpuSpec& g : gpus()) {
    CAPTURE(g.name);
    CHECK(&gpu(g.id) == &g);
    CHECK(g.usable_mib <= g.total_mib);
    CHECK(g.bandwidth_gbs > 0);
    // The driver's total never exceeds the marketing size read as GiB (GB200's
    // "186 GB" reads 185.03 GiB) nor falls under 90% of it (T4 loses 1/16 to ECC).
    CHECK(g.total_bytes() <= uint64_t{g.memory_gb} * kGiB);
    CHECK(g.total_bytes() * 10 >= uint64_t{g.memory_gb} * kGiB * 9);
  }
  for (const InstanceSpec& i : instances()) {
    CAPTURE(i.name);
    CHECK(i.count >= 1);
    CHECK(i.count <= 16);
  }
}

TEST_CASE("targets: exact bytes for several GPUs") {
  // 81559 MiB is what nvidia-smi prints for an H100 80GB; modal-labs quotes
  // the same board as 85520809984 bytes.
  const GpuSpec& h100 = resolve("h100").gpu[0];
  CHECK(h100.total_bytes() == 85520809984ull);
  CHECK(h100.usable_bytes() == 84943044608ull);  // 81008 MiB
  CHECK(h100.reserved_bytes() == 577765376ull);  // 551 MiB

  const GpuSpec& t4 = *resolve("t4").gpu;
  CHECK(t4.total_bytes() == 16106127360ull);   // 15360 MiB
  CHECK(t4.usable_bytes() == 15828254720ull);  // 15095 MiB
  CHECK_FALSE(t4.bf16);

  const GpuSpec& a100 = *resolve("a100-40gb").gpu;
  CHECK(a100.total_bytes() == 42949672960ull);   // 40960 MiB
  CHECK(a100.usable_bytes() == 42298507264ull);  // 40339 MiB
  CHECK(a100.bf16);

  CHECK(resolve("mi300x").gpu->usable_bytes() == 206141652992ull);  // 196592 MiB
  CHECK(resolve("h200").gpu->total_mib == 143771);
  CHECK(resolve("b200").gpu->usable_mib == 182631);
  CHECK(resolve("rtx4090").gpu->usable_bytes() == 25382879232ull);
}

TEST_CASE("targets: bf16 support for the advice engine") {
  for (const char* no : {"t4", "v100-16gb", "v100-32gb", "p100", "rtx2080ti"}) {
    CAPTURE(no);
    CHECK_FALSE(resolve(no).gpu->bf16);
  }
  for (const char* yes : {"a100-40gb", "a10g", "l4", "h100", "rtx3090", "mi250x"}) {
    CAPTURE(yes);
    CHECK(resolve(yes).gpu->bf16);
  }
}

TEST_CASE("targets: names and aliases are case- and punctuation-insensitive") {
  CHECK(resolve("H100").name == "h100");
  CHECK(resolve("H100-SXM").name == "h100");
  CHECK(resolve("h100_sxm5").name == "h100");
  CHECK(resolve("NVIDIA H100 80GB HBM3").name == "h100");  // nvidia-smi product name
  CHECK(resolve("NVIDIA H100 PCIe").name == "h100-pcie");
  CHECK(resolve("Tesla T4").name == "t4");
  CHECK(resolve("Tesla V100-SXM2-32GB").name == "v100-32gb");
  CHECK(resolve("NVIDIA GeForce RTX 4090").name == "rtx4090");
  CHECK(resolve("NVIDIA A100-SXM4-80GB").name == "a100-80gb");
  CHECK(resolve("AMD Instinct MI300X").name == "mi300x");
  CHECK(resolve("a6000").name == "rtx-a6000");
  CHECK(resolve("RTX 6000 Ada").name == "rtx-6000-ada");
  CHECK(resolve("NVIDIA GH200 480GB").name == "gh200");
  CHECK(resolve("h100").assumption.empty());
}

TEST_CASE("targets: ambiguous aliases resolve to the smaller board and say so") {
  const Target& a100 = resolve("A100");
  CHECK(a100.name == "a100-40gb");
  CHECK(a100.assumption == "`a100` names several boards; assumed `a100-40gb`");
  const Target& v100 = resolve("v100");
  CHECK(v100.name == "v100-16gb");
  CHECK(v100.assumption == "`v100` names several boards; assumed `v100-16gb`");
}

TEST_CASE("targets: every canonical name and alias resolves to its own row") {
  // A collision after normalization would make one row unreachable.
  std::set<std::string> seen;
  for (const GpuSpec& g : gpus()) {
    CAPTURE(g.name);
    CHECK(seen.insert(normalize_name(g.name)).second);
    CHECK(lookup_target(g.name).target->gpu == &g);
    std::string aliases(g.aliases);
    size_t start = 0;
    while (start < aliases.size()) {
      size_t end = aliases.find(' ', start);
      if (end == std::string::npos) end = aliases.size();
      std::string alias = aliases.substr(start, end - start);
      start = end + 1;
      if (!alias.empty() && alias.back() == '?') alias.pop_back();
      CAPTURE(alias);
      CHECK(seen.insert(normalize_name(alias)).second);
      LookupResult r = lookup_target(alias);
      REQUIRE(r.ok());
      CHECK(r.target->gpu == &g);
    }
  }
  for (const InstanceSpec& i : instances()) {
    CAPTURE(i.name);
    CHECK(seen.insert(normalize_name(i.name)).second);
    LookupResult r = lookup_target(i.name);
    REQUIRE(r.ok());
    CHECK(r.target->instance == &i);
  }
}

TEST_CASE("targets: cloud instances expand to count x GPU") {
  const Target& p4d = resolve("p4d.24xlarge");
  CHECK(p4d.gpu->name == "a100-40gb");
  CHECK(p4d.count == 8);
  CHECK(p4d.usable_bytes_per_gpu() == 42298507264ull);
  CHECK(p4d.total_usable_bytes() == 338388058112ull);

  CHECK(resolve("P5.48XLARGE").gpu->name == "h100");
  CHECK(resolve("p4de.24xlarge").gpu->name == "a100-80gb");
  CHECK(resolve("p3dn.24xlarge").gpu->name == "v100-32gb");
  CHECK(resolve("g4dn.xlarge").count == 1);
  CHECK(resolve("g4dn.12xlarge").count == 4);
  CHECK(resolve("g5.48xlarge").count == 8);
  CHECK(resolve("g6e.12xlarge").gpu->name == "l40s");
  CHECK(resolve("a2-highgpu-4g").count == 4);
  CHECK(resolve("a2-megagpu-16g").count == 16);
  CHECK(resolve("a2-ultragpu-8g").gpu->name == "a100-80gb");
  CHECK(resolve("g2-standard-24").count == 2);
  CHECK(resolve("g2-standard-32").count == 1);

  const Target& nd = resolve("Standard_ND96isr_H100_v5");
  CHECK(nd.name == "Standard_ND96isr_H100_v5");
  CHECK(nd.count == 8);
  CHECK(resolve("nd96isr_h100_v5").instance == nd.instance);  // without `Standard_`
  CHECK(resolve("standard_nc24ads_a100_v4").gpu->name == "a100-80gb-pcie");
}

TEST_CASE("targets: <N>x<gpu> gives N devices of one GPU") {
  const Target& t = resolve("8xh100");
  CHECK(t.name == "8xh100");
  CHECK(t.count == 8);
  CHECK(t.instance == nullptr);
  CHECK(t.total_usable_bytes() == 8 * 84943044608ull);
  CHECK(resolve("4 \xC3\x97 A100-80GB").name == "4xa100-80gb");  // U+00D7
  CHECK(resolve("2*rtx4090").count == 2);
  CHECK(resolve("8xa100").assumption == "`a100` names several boards; assumed `a100-40gb`");
  // A count in front of an instance, or zero GPUs, is not a target.
  CHECK_FALSE(lookup_target("2xp4d.24xlarge").ok());
  CHECK_FALSE(lookup_target("0xh100").ok());
}

TEST_CASE("targets: unknown names list close matches") {
  CHECK(error_for("h1000") == "unknown target `h1000`; did you mean `h100`?");
  CHECK(error_for("rtx490") == "unknown target `rtx490`; did you mean `rtx4090`?");
  CHECK(error_for("p4d.24xlarg") ==
        "unknown target `p4d.24xlarg`; did you mean `p4d.24xlarge` or `p4de.24xlarge`?");
  CHECK(error_for("mi300") == "unknown target `mi300`; did you mean `mi300x`?");
  CHECK(error_for("k80") == "unknown target `k80`; `--list-targets` shows the known names");
  CHECK(error_for("") == "no target name given; `--list-targets` shows the known names");

  // A prefix lists completions, nearest first, at most five.
  LookupResult g5 = lookup_target("g5");
  REQUIRE_FALSE(g5.ok());
  CHECK(g5.error.query == "g5");
  CHECK(g5.error.suggestions == std::vector<std::string>{"g5.xlarge", "g5.2xlarge", "g5.4xlarge",
                                                         "g5.8xlarge", "g5.12xlarge"});
  CHECK(close_matches("a100-90gb", 2) == std::vector<std::string>{"a100-40gb", "a100-80gb"});
  CHECK(close_matches("T5") == std::vector<std::string>{"t4"});
}

TEST_CASE("targets: --list-targets table") {
  const std::string out = list_targets();
  CHECK(out.starts_with("GPUs: usable = what one process can allocate"));
  CHECK(
      out.find("\n  h100             80 GB   79.65 GiB    79.11 GiB  yes   NVIDIA H100 SXM5 80GB; "
               "SXM5; `h100` means this board (aliases: h100-sxm h100-sxm5 h100-80gb "
               "h100-sxm-80gb h100-80gb-hbm3)\n") != std::string::npos);
  CHECK(out.find("\n  t4               16 GB   15.00 GiB    14.74 GiB  no    NVIDIA T4 16GB; ") !=
        std::string::npos);
  // '~' marks an estimated usable figure.
  CHECK(out.find("\n  l4               24 GB   22.49 GiB  ~ 22.06 GiB  yes   ") !=
        std::string::npos);
  // Instances are grouped under their provider, in table order.
  size_t aws = out.find("\n  AWS\n"), gcp = out.find("\n  GCP\n"), azure = out.find("\n  Azure\n");
  REQUIRE(aws != std::string::npos);
  CHECK(aws < gcp);
  CHECK(gcp < azure);
  CHECK(out.find("\n    p4d.24xlarge                 8 x a100-40gb        39.39 GiB each\n") > aws);
  CHECK(out.find("\n    a2-highgpu-1g                1 x a100-40gb        39.39 GiB each\n") > gcp);
  CHECK(out.ends_with("nvidia-smi product names\n"));
}

TEST_CASE("targets: every GPU and instance issue 5 names resolves, exactly and through --list-targets") {
  std::string listed = list_targets();
  for (const char* n : {"h100", "h100-pcie", "h100-nvl", "h200", "b200", "gh200", "a100-40gb", "a100-80gb", "a10g",
                        "a40", "l4", "l40s", "t4", "v100-16gb", "v100-32gb", "rtx3090", "rtx4090", "rtx5090",
                        "rtx-a6000", "rtx-6000-ada", "mi250x", "mi300x"}) {
    CAPTURE(n);
    CHECK(resolve(n).gpu->name == std::string_view(n));
    CHECK(listed.find("\n  " + std::string(n) + " ") != std::string::npos);
  }
  for (auto [n, count] : {std::pair{"p4d.24xlarge", 8}, std::pair{"p5.48xlarge", 8}, std::pair{"g5.xlarge", 1},
                          std::pair{"a2-highgpu-1g", 1}}) {
    CAPTURE(n);
    CHECK(resolve(n).count == count);
  }
}
