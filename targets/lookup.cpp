// lookup: resolves a `--target` name against gpus.def and instances.def.
// requires: the two tables (expanded here, once, into static arrays).
// produces: lookup_target(), close_matches(), normalize_name().
#include <algorithm>
#include <array>
#include <charconv>
#include <string>
#include <utility>

#include "targets/targets.h"

namespace tpf::targets {
namespace {

using enum Vendor;
using enum Provider;
using enum Provenance;

// clang-format off
constexpr GpuSpec kGpus[] = {
#define TPF_GPU(id, name, display, vendor, memory_gb, total_mib, usable_mib, provenance, bw, bf16, \
                aliases, note)                                                                  \
  {GpuId::id, name, display, vendor, memory_gb, total_mib, usable_mib, provenance, bw, bf16,     \
   aliases, note},
#include "targets/gpus.def"
#undef TPF_GPU
};

constexpr InstanceSpec kInstances[] = {
#define TPF_INSTANCE(name, provider, gpu, count, usd, date, source) \
  {name, provider, GpuId::gpu, count, usd, date, source},
#include "targets/instances.def"
#undef TPF_INSTANCE
};
// clang-format on

// The table is indexed by GpuId, so the enum and the array must line up.
static_assert(kGpus[0].id == GpuId{0});
static_assert(kGpus[std::size(kGpus) - 1].id == GpuId(std::size(kGpus) - 1));

// A usable figure can never exceed the total the driver reports.
constexpr bool usable_within_total() {
  for (const GpuSpec& g : kGpus)
    if (g.usable_mib > g.total_mib || g.usable_mib == 0) return false;
  return true;
}
static_assert(usable_within_total(), "gpus.def: usable_mib must be in (0, total_mib]");

// Words that name a vendor or product line rather than a board. Stripped from
// the front of a key (repeatedly), so "NVIDIA GeForce RTX 4090" -> "rtx4090",
// "Tesla T4" -> "t4", and Azure's "Standard_ND96isr_H100_v5" -> "nd96isrh100v5".
constexpr std::string_view kNoiseWords[] = {"nvidia", "geforce",  "tesla",   "quadro",
                                            "amd",    "instinct", "standard"};

// Largest "<N>x<gpu>" count accepted: far above any real node, small enough
// that count * usable bytes cannot overflow 64 bits.
constexpr uint32_t kMaxGpuCount = 4096;

// Suggestions returned by close_matches() unless the caller asks otherwise;
// more than a handful stops being a hint.
constexpr size_t kMaxSuggestions = 5;

/// One lookup key: a normalized name or alias and what it resolves to.
struct Key {
  std::string key;
  const GpuSpec* gpu = nullptr;  // exactly one of gpu / instance
  const InstanceSpec* instance = nullptr;
  std::string_view ambiguous_alias;  // the alias as written, if it ended in '?'
  std::string_view canonical() const { return gpu ? gpu->name : instance->name; }
};

std::vector<Key> build_keys() {
  std::vector<Key> keys;
  for (const GpuSpec& g : kGpus) {
    keys.push_back({normalize_name(g.name), &g, nullptr, {}});
    std::string_view rest = g.aliases;
    while (!rest.empty()) {
      size_t sp = rest.find(' ');
      std::string_view alias = rest.substr(0, sp);
      rest = sp == std::string_view::npos ? std::string_view{} : rest.substr(sp + 1);
      if (alias.empty()) continue;
      bool ambiguous = alias.back() == '?';
      if (ambiguous) alias.remove_suffix(1);
      keys.push_back({normalize_name(alias), &g, nullptr, ambiguous ? alias : std::string_view{}});
    }
  }
  for (const InstanceSpec& i : kInstances)
    keys.push_back({normalize_name(i.name), nullptr, &i, {}});
  return keys;
}

/// Built once; read-only afterwards (no mutable global state).
const std::vector<Key>& keys() {
  static const std::vector<Key> k = build_keys();
  return k;
}

const Key* find_key(std::string_view normalized) {
  for (const Key& k : keys())
    if (k.key == normalized) return &k;
  return nullptr;
}

Target target_for(const Key& k) {
  Target t;
  if (k.instance) {
    t.name = std::string(k.instance->name);
    t.gpu = &gpu(k.instance->gpu);
    t.count = k.instance->count;
    t.instance = k.instance;
  } else {
    t.name = std::string(k.gpu->name);
    t.gpu = k.gpu;
    if (!k.ambiguous_alias.empty())
      t.assumption =
          "`" + std::string(k.ambiguous_alias) + "` names several boards; assumed `" + t.name + "`";
  }
  return t;
}

/// "8xh100" / "8*h100" (already normalized): the count and the GPU part, or
/// nullopt when the name does not have that shape.
std::optional<std::pair<uint32_t, std::string_view>> split_count(std::string_view key) {
  size_t digits = 0;
  while (digits < key.size() && key[digits] >= '0' && key[digits] <= '9') ++digits;
  if (digits == 0 || digits + 1 >= key.size()) return std::nullopt;
  if (key[digits] != 'x' && key[digits] != '*') return std::nullopt;
  uint32_t n = 0;
  auto [ptr, ec] = std::from_chars(key.data(), key.data() + digits, n);
  if (ec != std::errc{} || ptr != key.data() + digits) return std::nullopt;
  return std::pair{n, key.substr(digits + 1)};
}

}  // namespace

std::span<const GpuSpec> gpus() { return kGpus; }
std::span<const InstanceSpec> instances() { return kInstances; }
const GpuSpec& gpu(GpuId id) { return kGpus[static_cast<size_t>(id)]; }

std::string normalize_name(std::string_view name) {
  std::string out;
  out.reserve(name.size());
  // U+00D7 MULTIPLICATION SIGN, as in "8×H100", becomes 'x'.
  constexpr std::string_view kTimes = "\xC3\x97";
  for (size_t i = 0; i < name.size(); ++i) {
    if (name.substr(i, kTimes.size()) == kTimes) {
      out += 'x';
      i += kTimes.size() - 1;
      continue;
    }
    char c = name[i];
    if (c == '-' || c == '_' || c == ' ' || c == '\t') continue;
    out += (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
  }
  for (bool stripped = true; stripped;) {
    stripped = false;
    for (std::string_view w : kNoiseWords) {
      if (out.size() > w.size() && out.compare(0, w.size(), w) == 0) {
        out.erase(0, w.size());
        stripped = true;
      }
    }
  }
  return out;
}

std::vector<std::string> close_matches(std::string_view name, size_t max) {
  const std::string q = normalize_name(name);
  // One edit per four characters (at least one): "h1000" and "a100-90gb" are
  // typos of real names, "k80" is not a typo of "t4".
  const size_t threshold = std::max<size_t>(1, q.size() / 4);
  struct Candidate {
    size_t cost;
    std::string_view name;
  };
  std::vector<Candidate> found;
  for (const Key& k : keys()) {
    size_t d = edit_distance(q, k.key);
    // A prefix relation ("g5" -> "g5.xlarge", "h100sxm5x" -> "h100sxm5") is a
    // match at any distance; its cost is the length difference, so nearer
    // completions rank first.
    bool prefix =
        q.size() >= 2 && (k.key.starts_with(q) || (k.key.size() >= 3 && q.starts_with(k.key)));
    if (d > threshold && !prefix) continue;
    found.push_back({d, k.canonical()});
  }
  std::sort(found.begin(), found.end(), [](const Candidate& a, const Candidate& b) {
    return a.cost != b.cost ? a.cost < b.cost : a.name < b.name;
  });
  std::vector<std::string> out;
  for (const Candidate& c : found) {
    if (out.size() >= max) break;
    if (std::find(out.begin(), out.end(), c.name) == out.end()) out.emplace_back(c.name);
  }
  return out;
}

LookupResult lookup_target(std::string_view name) {
  LookupResult r;
  const std::string q = normalize_name(name);
  if (const Key* k = find_key(q)) {
    r.target = target_for(*k);
    return r;
  }
  if (auto split = split_count(q)) {
    const Key* k = find_key(split->second);
    if (k && k->gpu && split->first >= 1 && split->first <= kMaxGpuCount) {
      Target t = target_for(*k);
      t.count = split->first;
      t.name = std::to_string(split->first) + "x" + std::string(k->gpu->name);
      r.target = std::move(t);
      return r;
    }
  }
  r.error.query = std::string(name);
  r.error.suggestions = close_matches(name, kMaxSuggestions);
  return r;
}

std::string LookupError::message() const {
  if (query.empty()) return "no target name given; `--list-targets` shows the known names";
  std::string m = "unknown target `" + query + "`";
  if (suggestions.empty()) return m + "; `--list-targets` shows the known names";
  m += "; did you mean ";
  for (size_t i = 0; i < suggestions.size(); ++i) {
    if (i > 0) m += i + 1 == suggestions.size() ? " or " : ", ";
    m += "`" + suggestions[i] + "`";
  }
  return m + "?";
}

std::string_view to_string(Vendor v) { return v == Vendor::Nvidia ? "NVIDIA" : "AMD"; }

std::string_view to_string(Provider p) {
  switch (p) {
    case Provider::Aws:
      return "AWS";
    case Provider::Gcp:
      return "GCP";
    case Provider::Azure:
      return "Azure";
  }
  return "?";
}

/// Levenshtein distance; names are short (< 40 bytes), so O(n*m) is nothing.
size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

}  // namespace tpf::targets
