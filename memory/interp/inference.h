// What the interpreter records of a script that evaluates or generates
// instead of training (memory/interp/inference.cpp): the forwards it ran at the
// top level, the KV cache of `model.generate(...)` or of a hand-written
// decode loop, and the lengths and batch they ran with. Internal to memory/.
// requires: dims.h. produces: InferenceFacts (filled while interp_run runs).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "memory/dtypes.h"

namespace tpf::memory {

struct Interp;
struct Value;
struct Args;
struct Estimate;
struct EstimateOptions;
struct Footprint;

/// The shape of one KV cache: what 2 x layers x kv_heads x head_dim x
/// length x batch x bytes(dtype) multiplies.
struct CacheGeometry {
  int64_t layers = 0;    ///< 0: no cache seen
  int64_t kv_heads = 0;  ///< num_key_value_heads (grouped-query attention), else the heads
  int64_t head_dim = 0;
  int64_t window = 0;  ///< sliding window the cache is capped at (0: none)
  Dtype dtype = Dtype::Float32;
};

/// A script's inference, as the interpreter saw it run.
struct InferenceFacts {
  enum class Kind : uint8_t { None, Forward, Generate, DecodeLoop };
  Kind kind = Kind::None;
  uint32_t line = 0;          ///< the generate call, or the loop's first cached forward
  uint32_t forwards = 0;      ///< top-level model forwards run
  bool grad_forward = false;  ///< one of them ran with gradients on
  /// Tracing a top-level forward: every activation tensor it creates is
  /// listed, in order, for the largest op's live intermediates.
  bool tracing = false;
  std::vector<uint32_t> created;  ///< ObjIds of the tensors the traced forward made
  /// The largest op's input and output of the prefill (or only) forward,
  /// and of a decode step; `_sdpa` with attention score matrices left out.
  uint64_t prefill_bytes = 0, prefill_bytes_sdpa = 0;
  uint64_t step_bytes = 0, step_bytes_sdpa = 0;
  uint64_t score_bytes = 0;     ///< the largest attention score matrix
  int64_t batch = 0;            ///< the batch the script generates for (beams included)
  int64_t prompt = 0;           ///< prompt tokens
  int64_t new_tokens = 0;       ///< max_new_tokens, or the decode loop's passes
  std::string new_tokens_from;  ///< "max_new_tokens=...", "range(...) of the loop", ...
  /// The prompt's ids came from a tokenizer's encode of a text the
  /// estimate does not read (prompt_ids) and --generate gave no PROMPT:
  /// where, and what made them (their length is a placeholder of 1).
  uint32_t prompt_unread_line = 0;
  std::string prompt_unread_call;
  /// The longest prompt bounded by its text's bytes (0: none), where, and
  /// the note's words for it.
  int64_t prompt_bound = 0;
  uint32_t prompt_bound_line = 0;
  std::string prompt_bound_call;
  bool use_cache = true;
  /// A decode loop that feeds the whole growing sequence each pass (no
  /// cache): its largest forward is at the last length, which the two
  /// passes run do not reach.
  bool regrows = false;
  int64_t regrow_len = 0;  ///< the length the last such forward was run at (0: not run)
  std::string regrow_cap;  ///< the position table that capped it (empty: none did)
  CacheGeometry cache;
  uint32_t cache_calls = 0;  ///< forwards that returned a cache
  /// The forward returns the cache container it was given (updated in
  /// place), not new tuples beside the caller's old ones.
  bool cache_in_place = false;
  int64_t loop_trips = 0;  ///< passes of the decode loop left after two
  std::string model_cls;
  /// The decode loop's last step call (the model and its arguments), rerun
  /// with a cache of the full length when the loop is left.
  uint32_t step_model = UINT32_MAX;
  std::vector<Value> step_pos;
  std::vector<std::pair<uint32_t, Value>> step_kw;
};

/// A script-level range loop run under no_grad was left after two passes
/// (interp.cpp): when it is the decode loop, its length is the tokens made,
/// and its step is run once more on a cache of the full length (the
/// step's attention over the cache grows with it).
void decode_loop_left(Interp& in, int64_t trips);

/// A model's forward called at the top level of the script (no module's
/// forward is running): traced for its largest op; a forward that returns
/// a KV cache is a decode loop's. Called by module_call.
Value traced_forward(Interp& in, Value model, Args& a);

/// Token ids a tokenizer makes of a prompt (`enc.encode(start)`,
/// `tokenizer(prompts, return_tensors="pt")`; `call` names it in the
/// notes): rank 1 is a list's ids, rank 2 one row per text, padded to the
/// longest (and to a multiple of `multiple`). Their length is --generate's
/// PROMPT; else, for texts the script writes, at most their UTF-8 bytes + 3
/// (noted); else only the text knows it: 1, and the estimate names the
/// call as its blocking unknown.
Value prompt_ids(Interp& in, std::string_view call, Value text, int rank, int64_t multiple = 1);

/// `model.generate(...)` on a Hugging Face model (memory/tables/zoo): the prefill
/// forward, one decode step (or the last full-length forward without a
/// cache), and the cache geometry from the model's config.
Value generate_call(Interp& in, Value model, Args& a);

/// Whether the run is an inference: no `.backward()`, no optimizer, and a
/// forward (or generate) the interpreter followed.
bool is_inference_run(const Interp& in);

/// Fills the inference part of the estimate and of its footprint (weights,
/// KV cache, the forward's live intermediates) under opt's tweaks and
/// --generate. requires: model_memory's parameter and weight counts.
void inference_footprint(Interp& in, const EstimateOptions& opt, Estimate& e, Footprint& f);

/// KV-cache bytes: 2 x layers x kv_heads x head_dim x min(length, window)
/// x batch x bytes(dtype).
uint64_t kv_cache_bytes(const CacheGeometry& g, int64_t length, int64_t batch);

}  // namespace tpf::memory
