// The training configuration read from a script: every setting the memory
// model needs (batch size, sequence length, precision, optimizer,
// checkpointing, accumulation, sharding, world size), each with the source
// line it came from, plus what was not found. Filled by the interpreter
// (memory/interp*.cpp) as it meets the constructs; CLI overrides replace
// values and say so.
// requires: nothing. produces: TrainingConfig.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "memory/dtypes.h"

namespace tpf::memory {

/// Where a setting came from: a source line (1-based; 0 when none) and a
/// short description ("argparse --batch-size default", "--batch-size").
struct Origin {
  uint32_t line = 0;
  std::string source;
};

/// One integer setting (batch size, seq len, world size, ...).
struct IntSetting {
  std::optional<int64_t> value;
  Origin origin;
  /// The value is a bound the run cannot exceed (a model's position
  /// table), not the run's own: an estimate that fits at it fits the run;
  /// one over the target at it says nothing of the run.
  bool upper_bound = false;
  bool known() const { return value.has_value(); }
};

enum class OptimizerKind : uint8_t {
  Sgd, Adam, AdamW, Adagrad, RMSprop, Adadelta, Adamax, NAdam, RAdam, Lion, Adafactor,
  Adam8bit, LBFGS, Unknown
};

/// One optimizer the script constructs.
struct OptimizerInfo {
  OptimizerKind kind = OptimizerKind::Unknown;
  std::string name;          ///< as written, qualified: "torch.optim.AdamW"
  Origin origin;
  bool momentum = false;     ///< SGD/RMSprop momentum != 0
  bool amsgrad = false;
  bool weight_decay = false; ///< weight_decay != 0 (an extra temporary per tensor in the for-loop step)
  bool nesterov = false;     ///< SGD nesterov (another)
  bool centered = false;     ///< RMSprop centered
  bool fused = false;
  bool foreach = false;
  bool foreach_off = false;  ///< foreach=False: the per-tensor loop, no list-wide temporaries
  uint64_t param_tensors = 0;   ///< distinct parameter tensors it updates
  uint64_t params = 0;          ///< elements (at the script's own sizes)
  uint64_t param_bytes = 0;     ///< bytes of those parameters
  std::vector<uint32_t> storages;  ///< parameter storages (interpreter ids)
  bool stepped = false;         ///< .step() is reached in the training loop
};

enum class Sharding : uint8_t { None, Ddp, Fsdp, Zero1, Zero2, Zero3 };

struct TrainingConfig {
  IntSetting batch_size;      ///< per-GPU micro-batch
  IntSetting seq_len;         ///< tokens per sample, when the model takes tokens
  IntSetting image_size;      ///< pixels per side, when the model takes images
  IntSetting grad_accum;      ///< gradient accumulation steps
  IntSetting world_size;      ///< data-parallel processes
  IntSetting zero_stage;      ///< DeepSpeed ZeRO stage

  Dtype param_dtype = Dtype::Float32;  ///< dtype of the weights as trained
  Origin param_dtype_origin;
  std::optional<Dtype> autocast;       ///< autocast/AMP compute dtype, when on
  Origin autocast_origin;
  bool grad_scaler = false;
  Origin grad_scaler_origin;
  bool master_weights = false;         ///< an fp32 master copy is kept (DeepSpeed fp16/bf16)
  Origin master_weights_origin;

  std::vector<OptimizerInfo> optimizers;
  bool checkpointing = false;
  Origin checkpointing_origin;
  Sharding sharding = Sharding::None;
  Origin sharding_origin;
  bool ddp_bucket_view = false;        ///< DDP(gradient_as_bucket_view=True)
  std::optional<bool> set_to_none;     ///< zero_grad(set_to_none=...) as reached
  Origin set_to_none_origin;
  bool sdpa = false;                   ///< attention through F.scaled_dot_product_attention
  bool explicit_attention = false;     ///< a softmax over a (T, T) score matrix
  Origin attention_origin;
  bool compiled = false;               ///< torch.compile
  Origin compiled_origin;

  /// Models: what each trained network is, where it was built.
  struct Model {
    std::string name;   ///< variable or class name
    std::string cls;    ///< class (or zoo/HF name)
    Origin origin;
    uint64_t params = 0;
    uint32_t object = UINT32_MAX;  ///< the interpreter's module object (internal)
  };
  std::vector<Model> models;

  /// What the interpreter could not model ("the forward input of `model`",
  /// "`timm.create_model`"), with the line: each widens the interval or
  /// makes the verdict unknown.
  struct Unknown {
    std::string what;
    uint32_t line = 0;
    bool blocking = false;  ///< true: a component cannot be estimated at all
  };
  std::vector<Unknown> unknowns;
};

std::string_view optimizer_name(OptimizerKind k);
std::string_view sharding_name(Sharding s);

}  // namespace tpf::memory
