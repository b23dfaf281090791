// Configuration sources: a value read from a named place in the script
// (an argparse dest, a module constant, a config-class field, a
// TrainingArguments or DeepSpeed key) whose name says it is the batch
// size, the sequence length, the image size, the accumulation steps or the
// world size. Sizes become DimArena symbols (B, T, S) bound to the CLI
// override when given, so everything derived from them stays symbolic;
// each setting keeps the line it came from.
// requires: interp.h. produces: TrainingConfig settings, symbolic dims.
#include <algorithm>

#include "memory/interp/interp.h"

namespace tpf::memory {
namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    if (c == '-') c = '_';
  }
  return out;
}

// The names that mean "batch size", "sequence length", "image size" in
// training scripts, argparse flags, dataclass configs and HF/DeepSpeed
// configs (exact match after lowercasing and '-' -> '_').
constexpr std::string_view kBatchNames[] = {
    "batch_size", "batchsize", "bs", "train_batch_size", "micro_batch_size", "mini_batch_size",
    "per_device_train_batch_size", "per_gpu_train_batch_size", "train_micro_batch_size_per_gpu",
    "batch"};
constexpr std::string_view kSeqNames[] = {
    "seq_len", "seq_length", "sequence_length", "block_size", "max_len", "max_length", "max_seq_len",
    "max_seq_length", "context_length", "context_len", "ctx_len", "n_ctx", "bptt", "seqlen",
    "max_source_length", "max_target_length"};
constexpr std::string_view kImageNames[] = {"image_size", "img_size", "imagesize", "imgsize", "img",
                                            "input_size", "resolution", "crop_size", "image_res"};
constexpr std::string_view kAccumNames[] = {"gradient_accumulation_steps", "grad_accum", "accum_steps",
                                            "accumulation_steps", "grad_accum_steps", "accumulate_grad_batches",
                                            "gradient_accumulation", "grad_accumulation_steps", "accum_iter",
                                            "accumulate_steps", "accum", "update_freq"};
constexpr std::string_view kWorldNames[] = {"world_size", "num_gpus", "n_gpus", "ngpus", "nproc_per_node",
                                            "num_processes"};

// Sequence names that size the model, not the batch: the longest context
// it takes. A run may train shorter (llm.c: block_size 1024, --sequence_length 64).
constexpr std::string_view kSeqCapacityNames[] = {
    "block_size", "max_len", "max_length", "max_seq_len", "max_seq_length", "context_length",
    "context_len", "ctx_len", "n_ctx", "max_source_length", "max_target_length"};

template <size_t N>
bool in_list(const std::string& s, const std::string_view (&list)[N]) {
  return std::find(std::begin(list), std::end(list), s) != std::end(list);
}

}  // namespace

Value Interp::named_source(std::string_view name, Value v, uint32_t line, std::string_view how) {
  std::string n = lower(name);
  // Accumulation steps and world size are recorded, not symbolic.
  if ((in_list(n, kAccumNames) || in_list(n, kWorldNames)) && v.kind == VKind::Int) {
    IntSetting& s = in_list(n, kAccumNames) ? cfg.grad_accum : cfg.world_size;
    const int64_t val = dims.value(v.dim());
    // `--world-size default=-1` (pytorch/examples imagenet) means "not set".
    if (val <= 0) return v;
    if (!s.known()) {
      s = {val, {line, std::string(how)}};
    } else if (*s.value != val && line > s.origin.line && s.origin.source.starts_with(std::string(how))) {
      // The same name assigned again further down (nanoGPT's
      // `gradient_accumulation_steps //= ddp_world_size`): the run uses the last.
      const std::string first = s.origin.source.substr(0, s.origin.source.find(" (was "));
      s = {val, {line, first + " (was " + std::to_string(*s.value) + ", line " + std::to_string(s.origin.line) + ")"}};
    }
    return v;
  }
  IntSetting* setting = nullptr;
  int64_t* orig = nullptr;
  std::optional<int64_t> over;
  const char* sym = nullptr;
  if (in_list(n, kBatchNames)) {
    setting = &cfg.batch_size, orig = &orig_batch, over = opt.batch_size, sym = "B";
  } else if (in_list(n, kSeqNames)) {
    setting = &cfg.seq_len, orig = &orig_seq, over = opt.seq_len, sym = "T";
  } else if (in_list(n, kImageNames)) {
    setting = &cfg.image_size, orig = &orig_image, over = std::nullopt, sym = "S";
  } else {
    return v;
  }
  // A plain value and a flag, not std::optional: GCC's -O2 flow analysis
  // reports optional's payload as maybe-uninitialized in the string below.
  const bool has_val = v.kind == VKind::Int;
  const int64_t val_num = has_val ? dims.value(v.dim()) : -1;
  if (has_val && dims.is_const(v.dim()) && val_num <= 0 && !over && !setting->known()) {
    // No tensor has such a size: a placeholder (-1 for "auto") or a bug.
    note_unknown("`" + std::string(name) + "` is " + std::to_string(val_num) + " (" +
                     std::string(how) + "): no tensor has that size, so it is not used as the " +
                     (sym[0] == 'B' ? "batch size" : sym[0] == 'T' ? "sequence length" : "image size"),
                 Span{}, false);
    return Value::unknown();
  }
  const int64_t* val = has_val ? &val_num : nullptr;
  if (!val && !over) return v;
  if (v.kind == VKind::Int && !dims.is_const(v.dim())) return v;  // already symbolic
  if (setting->known()) {
    if (*orig == -1 && val) {
      // Set on the command line only so far: the script's first source
      // of it is what the override replaces.
      *orig = *val;
      setting->origin = {line, setting->origin.source + " (was " + std::to_string(*val) + ", " + std::string(how) + ")"};
    }
    // A capacity (block_size) first, then a run length that differs: the
    // run's length is the sequence length. The capacity keeps its own
    // symbol, renamed after its source, for what it sized (a position table).
    if (setting == &cfg.seq_len && seq_from_capacity && val && *val != *orig && !over &&
        !in_list(n, kSeqCapacityNames)) {
      const DimSym old = dims.find_symbol("T");
      if (old != UINT32_MAX) dims.rename_symbol(old, "T_" + (setting->origin.source.empty() ? std::string("max") : std::to_string(setting->origin.line)));
      seq_from_capacity = false;
      *orig = *val;
      setting->value = *val;
      setting->origin = {line, std::string(how)};
      return Value::integer(dims.symbol("T", *val));
    }
    // The same setting read again (a constant, then the argparse default
    // built from it): the same symbol. A different value is something else.
    if (val && *val != *orig) return v;
    return Value::integer(dims.symbol(sym, *setting->value));
  }
  *orig = val_num;
  if (setting == &cfg.seq_len) seq_from_capacity = !over && in_list(n, kSeqCapacityNames);
  int64_t bound = over ? *over : *val;
  setting->value = bound;
  setting->origin = {line, over ? std::string("--") + (sym[0] == 'B' ? "batch-size" : "seq-len") + " (was " +
                                      (val ? std::to_string(*val) : std::string("unset")) + ", " +
                                      std::string(how) + ")"
                                : std::string(how)};
  return Value::integer(dims.symbol(sym, bound));
}

Value Interp::override_source(std::string_view name, Value v, uint32_t line, std::string_view how) {
  if (v.kind != VKind::Int || !dims.is_const(v.dim())) return v;
  const std::string n = lower(name);
  const int64_t val = dims.value(v.dim());
  auto was = [&](const IntSetting& s) {
    return s.known() ? " (was " + std::to_string(*s.value) + (s.origin.line ? ", line " + std::to_string(s.origin.line) : "") + ")"
                     : std::string();
  };
  if (in_list(n, kAccumNames) || in_list(n, kWorldNames)) {
    IntSetting& s = in_list(n, kAccumNames) ? cfg.grad_accum : cfg.world_size;
    // tpf-analyze's own option wins; the same value keeps its first source.
    if (s.origin.source.starts_with("--") || (s.known() && *s.value == val)) return v;
    s = {val, {line, std::string(how) + was(s)}};
    return v;
  }
  IntSetting* setting = nullptr;
  int64_t* orig = nullptr;
  const char* sym = nullptr;
  bool cli = false;
  if (in_list(n, kBatchNames)) setting = &cfg.batch_size, orig = &orig_batch, sym = "B", cli = opt.batch_size.has_value();
  else if (in_list(n, kSeqNames)) setting = &cfg.seq_len, orig = &orig_seq, sym = "T", cli = opt.seq_len.has_value();
  else if (in_list(n, kImageNames)) setting = &cfg.image_size, orig = &orig_image, sym = "S";
  else return v;
  // --batch-size / --seq-len on tpf-analyze's command line win over the script.
  if (cli) return named_source(name, v, line, how);
  if (setting->known() && *setting->value == val) return Value::integer(dims.symbol(sym, val));
  if (setting->known()) {
    const DimSym old = dims.find_symbol(sym);
    if (old != UINT32_MAX) dims.rename_symbol(old, std::string(sym) + "_" + std::to_string(setting->origin.line));
  }
  setting->origin = {line, std::string(how) + was(*setting)};
  setting->value = val;
  *orig = val;
  if (setting == &cfg.seq_len) seq_from_capacity = in_list(n, kSeqCapacityNames);
  return Value::integer(dims.symbol(sym, val));
}

}  // namespace tpf::memory
