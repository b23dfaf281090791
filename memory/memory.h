// The VRAM estimator's public interface: estimate() reads one training
// script's IR, interprets it symbolically (memory/interp*.cpp), and returns
// the peak-memory model for a target GPU: components, peak with interval,
// verdict, the training configuration it read (with source lines), a
// per-layer activation table and ranked suggestions. Passes never print:
// tools/report_memory.cpp renders an Estimate as text or JSON.
// requires: ir::build of the script; targets::lookup_target for the target.
// produces: Estimate.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ir/ir.h"
#include "lexer/diag.h"
#include "memory/config.h"
#include "memory/dtypes.h"
#include "targets/targets.h"

namespace tpf::dataflow {
struct ProjectView;
}

namespace tpf::memory {

/// Which kernels' saving behaviour the activation model follows. The
/// estimate is for CUDA; Cpu reproduces the CPU kernels the ground truth
/// was measured with (float dropout masks, the unfused LSTM, CPU autocast
/// op lists; test/memory/README.md), so tests can compare exactly.
enum class Kernels : uint8_t { Cuda, Cpu };

/// What-if changes a suggestion applies to the script (advice.cpp reruns
/// the estimate with them).
struct Tweaks {
  bool checkpoint_blocks = false;   ///< activation checkpointing of each repeated block
  bool sdpa = false;                ///< explicit (T, T) attention replaced by SDPA
  std::optional<OptimizerKind> optimizer;  ///< e.g. Adam8bit
  bool fused_optimizer = false;     ///< no foreach step temporaries
  int64_t batch_divisor = 1;        ///< micro-batch = batch / divisor (with accumulation)
  std::optional<Sharding> sharding; ///< FSDP / ZeRO
  int64_t shard_world = 0;          ///< GPUs it shards over
  // Inference (memory/interp/inference.cpp):
  std::optional<Dtype> weight_dtype;  ///< weights loaded in bf16/fp16 (`torch_dtype=`)
  int weight_bits = 0;              ///< 8 or 4: bitsandbytes-quantized linear weights
  int64_t serve_batch_divisor = 1;  ///< generate for batch / divisor at a time
  int64_t context_divisor = 1;      ///< prompt and generated length / divisor
  bool empty() const {
    return !checkpoint_blocks && !sdpa && !optimizer && !fused_optimizer && batch_divisor == 1 && !sharding &&
           !weight_dtype && weight_bits == 0 && serve_batch_divisor == 1 && context_divisor == 1;
  }
};

/// --generate BATCHxTOKENS or BATCHxPROMPT+TOKENS: the batch, the prompt
/// length (0: the script's own) and the generated length an inference
/// estimate is made for, instead of the script's own.
struct GenerateSize {
  int64_t batch = 0;
  int64_t tokens = 0;
  int64_t prompt = 0;
};
/// Parses "8x2048" and "1x64+500"; nullopt with `error` set on anything else.
std::optional<GenerateSize> parse_generate(std::string_view text, std::string& error);

/// A torch release: its defaults shape the step (zero_grad's set_to_none,
/// the optimizers' foreach, SDPA).
struct TorchVersion {
  int major = 2, minor = 5;
  bool operator<(const TorchVersion& o) const { return major != o.major ? major < o.major : minor < o.minor; }
};
/// "1.13", "2.1.2", ">=2.0": the first X.Y in `text`; nullopt when none.
std::optional<TorchVersion> parse_torch_version(std::string_view text);

/// One point of the step's timeline (--timeline): live bytes after an event.
struct TimelinePoint {
  std::string phase;     ///< "forward", "backward", "step"
  std::string op;        ///< the module or the op, e.g. "model.conv1", "Adam.step"
  uint32_t line = 0;
  uint64_t allocated = 0;  ///< bytes of live tensors
  uint64_t reserved = 0;   ///< the caching allocator's segments
};

struct EstimateOptions {
  std::optional<targets::Target> target;  ///< none: components only, verdict unknown
  /// The torch the run uses (--torch-version, [tool.tpf] torch-version or
  /// the project's pins); none: the current 2.x.
  std::optional<TorchVersion> torch_version;
  std::string torch_version_from;  ///< "--torch-version", "requirements.txt", ...
  std::optional<int64_t> batch_size;      ///< --batch-size
  std::optional<int64_t> seq_len;         ///< --seq-len
  std::optional<int64_t> world_size;      ///< --world-size
  std::optional<Dtype> dtype;             ///< --dtype: train in this precision (autocast)
  Kernels kernels = Kernels::Cuda;
  /// Command-line arguments the script is imagined to run with: what
  /// `parse_args()` without arguments parses (empty: the defaults).
  std::vector<std::string> argv;
  std::optional<GenerateSize> generate;  ///< --generate
  Tweaks tweaks;
  bool suggest = true;  ///< compute suggestions (reruns the estimate per suggestion)
  /// The script's view of its project: the interpreter follows its
  /// imports into the project's own modules (null: the script alone).
  const dataflow::ProjectView* project = nullptr;
};

/// The components of the peak, in bytes per GPU. `known` is false when a
/// component could not be estimated (then its bytes are 0 and the verdict
/// is unknown).
struct Components {
  uint64_t weights = 0;
  uint64_t gradients = 0;
  uint64_t optimizer_state = 0;
  uint64_t master_weights = 0;
  uint64_t activations = 0;        ///< saved for backward (and the batch), at the peak
  /// The first gradient buffers of backward, while every saved tensor is
  /// still alive (when the peak is in backward).
  uint64_t backward_transients = 0;
  /// The optimizer step's temporaries (foreach: about all parameters; the
  /// for-loop: the largest), when the peak is in optimizer.step().
  uint64_t step_temporaries = 0;
  uint64_t autocast_cache = 0;
  uint64_t kv_cache = 0;           ///< inference: the KV cache at the peak
  uint64_t cuda_context = 0;
  uint64_t fragmentation = 0;
  bool weights_known = true;
  bool activations_known = true;
  uint64_t total() const {
    return weights + gradients + optimizer_state + master_weights + activations + backward_transients +
           step_temporaries + autocast_cache + kv_cache + cuda_context + fragmentation;
  }
};

enum class Verdict : uint8_t { Fits, Tight, Oom, Unknown };
std::string_view verdict_name(Verdict v);  ///< "fits", "tight", "oom", "unknown"

/// What one run of the script holds on each GPU before a target is named:
/// the unsharded byte counts the interpreter's run fixes. judge() shards
/// them over a world size and adds a target's CUDA context and allocator
/// slack, so --fit re-judges one run against every target without
/// interpreting the script again.
struct Footprint {
  uint64_t weights = 0;          ///< parameters and buffers
  uint64_t gradients = 0;
  uint64_t optimizer_state = 0;
  uint64_t master_weights = 0;
  uint64_t foreach_temp = 0;     ///< optimizer step temporaries, unsharded
  uint64_t activations = 0;      ///< every graph alive at the peak backward
  uint64_t recompute = 0;        ///< largest checkpointed segment rebuilt in backward
  uint64_t batch_input = 0;
  uint64_t transient = 0;        ///< first gradient buffers of backward
  uint64_t autocast_cache = 0;   ///< every weight cast of the forward
  uint64_t autocast_cache_kept = 0;  ///< the casts still alive in backward
  uint64_t gathered_unit = 0;    ///< FSDP/ZeRO-3: the largest block's parameters
  Sharding sharding = Sharding::None;
  bool ddp_bucket_view = false;
  int64_t world = 1;             ///< GPUs the state is sharded over
  double widen = 0;              ///< the interval's widening for guesses (0 - 0.5)
  /// False when blocking unknowns, no model or no followed step leave the
  /// verdict unknown on any target.
  bool judgeable = false;
  /// The sequence length is a bound (a position table), not the run's: a
  /// peak over or near a target says nothing then.
  bool seq_len_at_bound = false;
  /// An inference run: the peak is weights + kv_cache + activations (the
  /// live intermediates of the largest op at that point), nothing else.
  bool inference = false;
  uint64_t kv_cache = 0;
  /// The simulated step (memory/sim/timeline.cpp): its allocated and reserved
  /// peaks with everything resident included, unsharded; 0 when no step was
  /// simulated (then judge() sums the components).
  uint64_t timeline_allocated = 0;
  uint64_t timeline_reserved = 0;
  std::string timeline_phase;  ///< where the peak falls: "forward", "backward", "step"
  uint64_t timeline_gradients = 0;   ///< .grad bytes alive at the peak
  uint64_t timeline_step_temp = 0;   ///< the optimizer step's temporaries, when the peak is there
};

/// A footprint on one GPU: the components, the peak and its interval, and
/// the verdict against `usable` bytes (unknown when `usable` is 0 or the
/// footprint is not judgeable).
struct Judgement {
  Components components;
  uint64_t peak_bytes = 0;
  uint64_t peak_low_bytes = 0;
  uint64_t peak_high_bytes = 0;
  uint64_t foreach_temp_bytes = 0;  ///< the step temporaries after sharding
  uint64_t allocated_peak_bytes = 0;  ///< live tensors at the peak
  uint64_t reserved_peak_bytes = 0;   ///< the caching allocator's segments at the peak
  Verdict verdict = Verdict::Unknown;
};
Judgement judge(const Footprint& f, const targets::GpuSpec& gpu, uint64_t usable);

/// Activation bytes saved for backward in one phase (the forward before one
/// `.backward()`), split the way test/memory/ground_truth splits them.
struct Phase {
  uint32_t line = 0;               ///< the `.backward()` call
  uint64_t activation_bytes = 0;   ///< saved activations (what the model charges)
  uint64_t input_saved_bytes = 0;  ///< batch tensors saved (resident anyway)
  uint64_t param_saved_bytes = 0;  ///< parameters saved (weight memory)
  uint64_t buffer_saved_bytes = 0;
  uint64_t autocast_copy_bytes = 0;  ///< autocast casts of parameters kept for backward
  uint64_t dropout_mask_bytes = 0;
  uint64_t dropout_mask_elements = 0;
  uint64_t live_bytes = 0;         ///< every graph still alive at this backward (peak)
  uint64_t recompute_bytes = 0;    ///< largest checkpointed segment rebuilt in backward
};

/// One row of the --breakdown table: a module's own saved activations.
struct LayerRow {
  std::string module;   ///< "model.transformer.h.0.attn"
  std::string cls;      ///< "CausalSelfAttention"
  uint64_t bytes = 0;
  std::string formula;  ///< the symbolic size, e.g. "B*T*768*4"
};

/// One "what would make it fit" change.
struct Suggestion {
  std::string change;        ///< "bf16 autocast (`torch.autocast(\"cuda\", dtype=torch.bfloat16)`)"
  std::string key;           ///< stable id: "bf16", "checkpointing", "sdpa", ...
  uint64_t saves_bytes = 0;
  uint64_t peak_after_bytes = 0;
  bool fits = false;
};

/// An inference estimate's inputs, for the report (memory/interp/inference.cpp).
struct InferenceReport {
  std::string kind;          ///< "generate", "decode loop" or "forward"
  uint32_t line = 0;
  int64_t layers = 0, kv_heads = 0, head_dim = 0, window = 0;
  Dtype cache_dtype = Dtype::Float32;
  int64_t batch = 0, prompt = 0, new_tokens = 0;
  std::string new_tokens_from;
  bool use_cache = true;
  uint64_t kv_cache_bytes = 0;     ///< at the full length
  uint64_t prefill_bytes = 0;      ///< the prefill's largest op
  uint64_t step_bytes = 0;         ///< a decode step's largest op and the cache append's copy
  std::string peak_at;             ///< "prefill", "last decode step" or "forward"
  std::string formula;             ///< "2 x 12 layers x 12 kv heads x 64 x (8 + 32) x 4 x 4 B"
};

struct Estimate {
  std::string path;
  std::string target;          ///< canonical target name, empty without one
  std::string gpu_display;
  uint64_t usable_bytes = 0;   ///< per GPU
  uint32_t gpu_count = 1;
  uint64_t params = 0;         ///< exact, deduplicated (a lower bound when !params_exact)
  /// False when a parameter's size could not be read: `params` counts the
  /// others, and config.unknowns names the first one.
  bool params_exact = true;
  bool overflow = false;  // a size overflowed 64 bits: counts and sizes are not real, the verdict unknown
  uint64_t trainable_params = 0;
  uint64_t buffer_bytes = 0;
  Components components;
  uint64_t peak_bytes = 0;
  uint64_t peak_low_bytes = 0;
  uint64_t peak_high_bytes = 0;
  Verdict verdict = Verdict::Unknown;
  TrainingConfig config;
  std::vector<Phase> phases;
  std::vector<LayerRow> layers;  ///< sorted by bytes, descending
  std::vector<Suggestion> suggestions;  ///< ranked: most saved first
  /// The smallest set of suggestions (by key, in order of application) that
  /// makes the peak fit, and the peak it gives; empty when none does.
  std::vector<std::string> smallest_stack;
  uint64_t stack_peak_bytes = 0;
  Span anchor;                 ///< where TPF013 points: the backward of the peak phase
  bool model_found = false;
  /// No training step of the script was followed: the one estimated was
  /// synthesized (a forward on an input made from the first layer, and a
  /// backward). It is a guess: TPF013 raises on it only when even the
  /// interval's low end is over the target, and TPF024 otherwise.
  bool step_synthesized = false;
  /// Attention score matrices ((..., T, T) activations) in the peak phase,
  /// which SDPA would not keep.
  uint64_t attention_score_bytes = 0;
  uint64_t foreach_temp_bytes = 0;    ///< optimizer step temporaries (foreach)
  uint64_t optimizer_state_bytes = 0; ///< all optimizers' state, unsharded (exact)
  uint64_t gradient_bytes = 0;        ///< .grad of every trainable parameter, unsharded
  uint64_t batch_input_bytes = 0;     ///< the batch tensors on the device
  uint64_t backward_transient_bytes = 0;  ///< first gradient buffers of backward
  Footprint footprint;  ///< what judge() turned into the components and peak
  uint64_t allocated_peak_bytes = 0;  ///< live tensors at the peak (issue 19)
  uint64_t reserved_peak_bytes = 0;   ///< the caching allocator's segments at the peak
  std::string peak_phase;             ///< "forward", "backward" or "step"
  std::string peak_op;                ///< the module or op where the peak falls
  uint32_t peak_line = 0;
  std::string torch_version;          ///< "1.13"
  std::string torch_version_from;     ///< where it came from
  std::vector<TimelinePoint> timeline;  ///< the simulated step, event by event
  std::optional<InferenceReport> inference;  ///< set for an inference estimate
};

/// --fit: a change from the suggestions, as suggestion keys ("bf16",
/// "checkpointing", "microbatch4", "fsdp", ...), and the peak per GPU it
/// gives. Empty keys: no change (or none that fits).
struct FitChange {
  std::vector<std::string> keys;
  uint64_t peak_bytes = 0;
};

/// One target of --fit: a GPU of gpus.def or an instance of instances.def.
struct FitRow {
  std::string name;                                ///< "t4", "p4d.24xlarge"
  const targets::GpuSpec* gpu = nullptr;
  const targets::InstanceSpec* instance = nullptr;  ///< null for a bare GPU
  uint32_t count = 1;                               ///< GPUs, the world size of sharded state
  uint64_t usable_bytes = 0;                        ///< per GPU
  uint64_t peak_bytes = 0;                          ///< per GPU, as written
  Verdict verdict = Verdict::Unknown;               ///< as written
  FitChange change;  ///< when the verdict is tight or oom: the smallest change that fits
  /// Over or near the usable memory at a bound of the sequence length (a
  /// position table), not the run's own length: the verdict is unknown.
  bool at_seq_bound = false;
  /// Distributed scripts, GPU rows: the fewest GPUs of this kind the run
  /// fits on as written (0: none up to 64), and the fewest with a change.
  uint32_t needed = 0;
  uint64_t needed_peak_bytes = 0;
  uint32_t needed_with_change = 0;
  FitChange needed_change;
};

/// The run as written, judged on every target.
struct Fit {
  Estimate estimate;  ///< the run as written (its config and unknowns)
  /// False when the footprint cannot be judged: estimate.config.unknowns
  /// says what is missing, and the tables are empty.
  bool judged = false;
  bool distributed = false;  ///< DDP, FSDP or ZeRO
  Sharding sharding = Sharding::None;
  int64_t batch = 0;         ///< the run's batch size (0: unknown)
  std::vector<FitRow> gpus;       ///< smallest first
  std::vector<FitRow> instances;  ///< smallest (GPUs x memory) first
};

/// Estimates the run once per change a suggestion could make and judges
/// it on every GPU and instance of targets/. opt.target and
/// opt.world_size are ignored: each target gives its own.
Fit compute_fit(const ir::Module& script, const EstimateOptions& opt);

/// How --fit names a change key: "bf16 autocast", "FSDP over 8",
/// "micro-batch 4, 2 accumulation steps" (with the run's batch).
std::string change_label(std::string_view key, int64_t batch, uint32_t world);

/// Interprets the script and models its peak memory. Problems in the
/// user's code that stop the estimate are not diagnostics: they are
/// recorded in config.unknowns and make the verdict unknown.
Estimate estimate(const ir::Module& script, const EstimateOptions& opt);

/// TPF013 (estimate exceeds target): the diagnostic to emit when the
/// projected peak is over the target's usable memory (verdict oom), else
/// nullopt. Code "TPF013", severity error, primary span at `anchor`, the
/// best suggestion as help.
std::optional<Diagnostic> exceeds_target(const Estimate& e);

/// TPF024 (tight on target): the warning when the estimate fits only just
/// (verdict tight: the interval's high end, or the peak within 10% of the
/// usable memory), or is over it but rests on guesses that put the
/// interval's low end under it; nullopt otherwise.
std::optional<Diagnostic> tight_on_target(const Estimate& e);

/// Whether TPF013 should gate on `e`: the verdict is oom, the step is the
/// script's own (not synthesized), and either the estimate rests on nothing
/// guessed or even the interval's low end is over the usable memory.
bool oom_for_certain(const Estimate& e);

/// Formats bytes as GiB with 2 decimals ("12.34 GiB").
std::string gib(uint64_t bytes);

}  // namespace tpf::memory
