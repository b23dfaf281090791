// Inference estimates (memory/interp/inference.cpp): the KV cache of generate()
// and of hand-written decode loops equals the worked formula
// 2 x layers x kv_heads x head_dim x (prompt + new tokens) x batch x bytes,
// to the byte; grouped-query attention, sliding windows, use_cache=False,
// --generate and the inference suggestions.
#include "memory/interp/inference.h"

#include <doctest/doctest.h>

#include "test/memory/memory_test_util.h"

using namespace tpf;

namespace {

memory::Estimate estimate_golden(const char* name, memory::EstimateOptions opt = {}) {
  auto s = test::load_script(test::memory_test_dir("golden/memory") / name);
  return memory::estimate(s->ir, opt);
}

memory::Estimate estimate_text(const std::string& text, memory::EstimateOptions opt = {}) {
  auto s = test::load_script_text("snippet.py", text);
  return memory::estimate(s->ir, opt);
}

/// The cache's geometry and sizes as the report gives them.
struct Sizes {
  int64_t layers, kv_heads, head_dim, batch, prompt, new_tokens;
};
void check_sizes(const memory::InferenceReport& r, const Sizes& s) {
  CHECK(r.layers == s.layers);
  CHECK(r.kv_heads == s.kv_heads);
  CHECK(r.head_dim == s.head_dim);
  CHECK(r.batch == s.batch);
  CHECK(r.prompt == s.prompt);
  CHECK(r.new_tokens == s.new_tokens);
}

}  // namespace

TEST_CASE("inference: GPT-2 generate's KV cache is the worked formula") {
  memory::Estimate e = estimate_golden("gpt2_generate.py");
  REQUIRE(e.inference);
  const memory::InferenceReport& r = *e.inference;
  CHECK(r.kind == "generate");
  check_sizes(r, {12, 12, 64, 4, 32, 96});
  // 2 x 12 layers x 12 heads x 64 x (32 + 96) tokens x batch 4 x 4 bytes
  // = 18,432 x 128 x 4 x 4 = 37,748,736
  CHECK(r.kv_cache_bytes == 37'748'736u);
  CHECK(r.peak_at.starts_with("last decode step"));
  CHECK(e.components.kv_cache == 37'748'736u);
  CHECK(e.components.gradients == 0);
  CHECK(e.components.optimizer_state == 0);
  // gpt2's 124,439,808 parameters in float32 (and its causal-mask buffers).
  CHECK(e.params == 124'439'808u);
  CHECK(e.components.weights >= 124'439'808u * 4);
}

TEST_CASE("inference: Llama 3.1 8B counts its 8 KV heads, not its 32 query heads") {
  memory::EstimateOptions opt;
  opt.target = test::target("l4");
  memory::Estimate e = estimate_golden("llama_gqa_generate.py", opt);
  REQUIRE(e.inference);
  const memory::InferenceReport& r = *e.inference;
  CHECK(r.kv_heads == 8);
  CHECK(r.head_dim == 128);
  CHECK(r.cache_dtype == memory::Dtype::BFloat16);
  // 2 x 32 layers x 8 kv heads x 128 x (4096 + 4096) x batch 8 x 2 bytes
  // = 65,536 x 8,192 x 8 x 2 = 8,589,934,592 (with 32 heads it would be 4x)
  CHECK(r.kv_cache_bytes == 8'589'934'592u);
  CHECK(e.verdict == memory::Verdict::Oom);
  // The suggestions an inference can take, each rerun: 8-bit and 4-bit
  // weights, a smaller batch, a shorter context (no training changes).
  std::vector<std::string> keys;
  uint64_t int8 = 0, int4 = 0;
  for (const memory::Suggestion& s : e.suggestions) {
    keys.push_back(s.key);
    if (s.key == "int8") int8 = s.saves_bytes;
    if (s.key == "int4") int4 = s.saves_bytes;
    CHECK(s.key != "checkpointing");
    CHECK(s.key != "adam8bit");
  }
  CHECK(std::find(keys.begin(), keys.end(), "batch2") != keys.end());
  CHECK(std::find(keys.begin(), keys.end(), "context2") != keys.end());
  CHECK(int8 > 0);
  CHECK(int4 > int8);
  CHECK(!e.smallest_stack.empty());
}

TEST_CASE("inference: hand-written decode loops read the cache off the forward") {
  SUBCASE("GPT-2 style, 8 heads") {
    memory::Estimate e = estimate_golden("gpt2_decode_loop.py");
    REQUIRE(e.inference);
    const memory::InferenceReport& r = *e.inference;
    CHECK(r.kind == "decode loop");
    check_sizes(r, {4, 8, 32, 8, 64, 192});
    // 2 x 4 x 8 x 32 x (64 + 192) x 8 x 4 = 2,048 x 256 x 32 = 16,777,216
    CHECK(r.kv_cache_bytes == 16'777'216u);
    // The caller holds the old tuples while the new ones are built: the
    // last step adds the old cache, (64 + 191) tokens of it.
    CHECK(r.step_bytes >= 2 * 4 * 8 * 32 * 255u * 8 * 4);
    CHECK(e.components.kv_cache == 16'777'216u);
  }
  SUBCASE("Llama style, 2 KV heads for 8 query heads") {
    memory::Estimate e = estimate_golden("llama_decode_loop.py");
    REQUIRE(e.inference);
    const memory::InferenceReport& r = *e.inference;
    check_sizes(r, {4, 2, 32, 16, 64, 448});
    // 2 x 4 x 2 x 32 x (64 + 448) x 16 x 4 = 512 x 512 x 64 = 16,777,216
    CHECK(r.kv_cache_bytes == 16'777'216u);
  }
}

TEST_CASE("inference: a sliding window caps the cache") {
  memory::Estimate e = estimate_text(R"(
import torch
from transformers import AutoModelForCausalLM
model = AutoModelForCausalLM.from_pretrained("mistralai/Mistral-7B-v0.1", torch_dtype=torch.float16)
ids = torch.randint(0, 32000, (2, 1024))
out = model.generate(ids, max_new_tokens=8192)
)");
  REQUIRE(e.inference);
  CHECK(e.inference->window == 4096);
  // 2 x 32 x 8 x 128 x min(1024 + 8192, 4096) x 2 x 2
  CHECK(e.inference->kv_cache_bytes == 2ull * 32 * 8 * 128 * 4096 * 2 * 2);
}

TEST_CASE("inference: use_cache=False has no cache and a full-length forward") {
  memory::Estimate e = estimate_text(R"(
import torch
from transformers import GPT2LMHeadModel
model = GPT2LMHeadModel.from_pretrained("gpt2")
ids = torch.randint(0, 50257, (2, 16))
out = model.generate(ids, max_new_tokens=48, use_cache=False)
)");
  REQUIRE(e.inference);
  CHECK(!e.inference->use_cache);
  CHECK(e.components.kv_cache == 0);
  CHECK(e.inference->peak_at == "last full-length forward");
  // The largest op at 16 + 48 tokens: the logits, 2 x 64 x 50257 x 4 bytes.
  CHECK(e.components.activations >= 2ull * 64 * 50257 * 4);
}

TEST_CASE("inference: --generate overrides the batch and the generated length") {
  memory::EstimateOptions opt;
  opt.generate = memory::GenerateSize{2, 100};
  memory::Estimate e = estimate_golden("gpt2_generate.py", opt);
  REQUIRE(e.inference);
  CHECK(e.inference->batch == 2);
  CHECK(e.inference->new_tokens == 100);
  CHECK(e.inference->new_tokens_from == "--generate");
  // 2 x 12 x 12 x 64 x (32 + 100) x 2 x 4
  CHECK(e.inference->kv_cache_bytes == 2ull * 12 * 12 * 64 * 132 * 2 * 4);
}

TEST_CASE("inference: a prompt tokenized from a file, and a decode loop without a cache") {
  // nanoGPT's sample.py pattern: the verdict names the encode call and the
  // --generate to pass, not a batch size.
  memory::EstimateOptions base;
  base.target = test::target("t4");
  memory::Estimate unknown = estimate_golden("sample_prompt_file.py", base);
  REQUIRE(unknown.inference);
  bool named = false;
  for (const auto& u : unknown.config.unknowns)
    if (u.blocking) {
      CHECK(u.what.find("prompt length: the token ids of `.encode(...)`") == 0);
      CHECK(u.what.find("--generate 1xPROMPT+500") != std::string::npos);
      CHECK(u.line == 94);
      named = true;
    }
  CHECK(named);
  CHECK(unknown.verdict == memory::Verdict::Unknown);
  // --generate 1x64+500: generate() re-runs the sequence each pass,
  // cropped to block_size, so the last forward is at min(64 + 500 - 1, 256)
  // = 256 tokens. Its largest op is the GELU of one block: (1, 256, 1536)
  // float32 in and out, 2 x 256 x 1536 x 4 bytes. Weights: 30,062,592
  // float32 parameters (the tied wte/lm_head once).
  memory::EstimateOptions opt = base;
  opt.generate = memory::GenerateSize{1, 500, 64};
  memory::Estimate e = estimate_golden("sample_prompt_file.py", opt);
  REQUIRE(e.inference);
  CHECK(e.verdict == memory::Verdict::Fits);
  CHECK(e.inference->prompt == 64);
  CHECK(e.inference->new_tokens == 500);
  CHECK(!e.inference->use_cache);
  CHECK(e.inference->peak_at == "last full-length forward (256 tokens, cropped to the position table `wpe`)");
  CHECK(e.params == 30'062'592u);
  CHECK(e.components.weights == 30'062'592u * 4);
  CHECK(e.components.kv_cache == 0);
  CHECK(e.components.activations == 2u * 256 * 1536 * 4);
}

TEST_CASE("inference: a prompt the script writes is bounded by its bytes") {
  memory::EstimateOptions opt;
  opt.target = test::target("t4");
  memory::Estimate e = estimate_text(R"(
import torch
from transformers import AutoModelForCausalLM, AutoTokenizer
model = AutoModelForCausalLM.from_pretrained("gpt2")
tokenizer = AutoTokenizer.from_pretrained("gpt2")
batch = tokenizer(["I would like to", "hello how are you"], padding=True, pad_to_multiple_of=8, return_tensors="pt")
out = model.generate(**batch, max_new_tokens=20)
)",
                                     opt);
  REQUIRE(e.inference);
  // The longest text, 17 bytes, + 3 special tokens, padded to 24.
  CHECK(e.inference->batch == 2);
  CHECK(e.inference->prompt == 24);
  CHECK(e.verdict != memory::Verdict::Unknown);
}

TEST_CASE("inference: transformers' default attention is SDPA; attn_implementation=\"eager\" is honoured") {
  const std::string script = R"(
import torch
from transformers import AutoModelForCausalLM
model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-3.1-8B-Instruct", torch_dtype=torch.bfloat16%s)
prompts = torch.randint(0, 128256, (8, 4096))
with torch.inference_mode():
    out = model.generate(prompts, max_new_tokens=4096)
)";
  auto with = [&](const std::string& kw) {
    std::string text = script;
    text.replace(text.find("%s"), 2, kw);
    memory::EstimateOptions opt;
    opt.target = test::target("h100");
    return estimate_text(text, opt);
  };
  memory::Estimate sdpa = with("");
  CHECK(sdpa.config.sdpa);
  CHECK(sdpa.config.attention_origin.line == 4);
  CHECK(sdpa.config.attention_origin.source.find("transformers' default attn_implementation=\"sdpa\"") == 0);
  CHECK(sdpa.attention_score_bytes == 0);
  memory::Estimate eager = with(", attn_implementation=\"eager\"");
  CHECK(!eager.config.sdpa);
  CHECK(eager.config.attention_origin.source == "attn_implementation=\"eager\"");
  // One layer's float32 scores of the prefill: 8 x 32 heads x 4096 x 4096 x 4.
  CHECK(eager.attention_score_bytes == 8ull * 32 * 4096 * 4096 * 4);
  CHECK(eager.components.activations > sdpa.components.activations + 8ull * 32 * 4096 * 4096 * 2);
  // The KV cache and weights do not depend on the attention.
  CHECK(eager.components.kv_cache == sdpa.components.kv_cache);
  CHECK(eager.components.weights == sdpa.components.weights);
}

TEST_CASE("inference: accelerate's split_between_processes over batches of prompts") {
  // accelerate's examples/inference/distributed/phi2.py pattern: prompts
  // in batches of 2 (the last one of 1), each tokenized, split between
  // processes, moved to the device and generated; the largest call counts.
  memory::EstimateOptions opt;
  opt.target = test::target("t4");
  memory::Estimate e = estimate_text(R"(
import torch
from transformers import AutoModelForCausalLM, AutoTokenizer
from accelerate import PartialState
state = PartialState()
model = AutoModelForCausalLM.from_pretrained("gpt2", device_map=state.device, torch_dtype=torch.float16)
tokenizer = AutoTokenizer.from_pretrained("gpt2")
prompts = ["I would like to", "hello how are you", "what is going on"]
batches = [prompts[i : i + 2] for i in range(0, len(prompts), 2)]
tokenized = [tokenizer(b, padding=True, pad_to_multiple_of=8, return_tensors="pt") for b in batches]
with state.split_between_processes(tokenized, apply_padding=True) as batched:
    for batch in batched:
        batch = batch.to(state.device)
        outputs = model.generate(**batch, max_new_tokens=20)
)",
                                     opt);
  REQUIRE(e.inference);
  CHECK(e.verdict == memory::Verdict::Fits);
  CHECK(e.inference->batch == 2);
  CHECK(e.inference->prompt == 24);
  // 2 x 12 layers x 12 heads x 64 x (24 + 20) x 2 x 2 B
  CHECK(e.inference->kv_cache_bytes == 2ull * 12 * 12 * 64 * 44 * 2 * 2);
}

TEST_CASE("inference: kv_cache_bytes") {
  memory::CacheGeometry g;
  g.layers = 2, g.kv_heads = 3, g.head_dim = 5, g.dtype = memory::Dtype::BFloat16;
  CHECK(memory::kv_cache_bytes(g, 7, 11) == 2u * 2 * 3 * 5 * 7 * 11 * 2);
  g.window = 4;
  CHECK(memory::kv_cache_bytes(g, 7, 11) == 2u * 2 * 3 * 5 * 4 * 11 * 2);
  g.layers = 0;
  CHECK(memory::kv_cache_bytes(g, 7, 11) == 0);
  // Past 64 bits the product saturates (never a wrapped small number).
  g.layers = int64_t{1} << 30, g.kv_heads = int64_t{1} << 20, g.head_dim = int64_t{1} << 20, g.window = 0;
  CHECK(memory::kv_cache_bytes(g, 7, 11) == UINT64_MAX);
}

TEST_CASE("inference: --generate BATCHxTOKENS is validated") {
  std::string why;
  auto ok = memory::parse_generate("8x2048", why);
  REQUIRE(ok);
  CHECK(ok->batch == 8);
  CHECK(ok->tokens == 2048);
  auto prompt = memory::parse_generate("1x64+500", why);
  REQUIRE(prompt);
  CHECK(prompt->batch == 1);
  CHECK(prompt->prompt == 64);
  CHECK(prompt->tokens == 500);
  CHECK(ok->prompt == 0);
  for (const char* bad : {"8", "8x", "x2048", "0x16", "8x-1", "8*2048", "8x2048x1", "ax2", "1x+500", "1x64+",
                          "1x0+500", "1x64+0", "1x64+500+1", "1x-64+500", "1+64x500"}) {
    CAPTURE(bad);
    why.clear();
    CHECK(!memory::parse_generate(bad, why));
    CHECK(why.find("--generate") == 0);
  }
}

TEST_CASE("inference: a training script is not an inference estimate") {
  memory::Estimate e = estimate_golden("gpt2_t4.py");
  CHECK(!e.inference);
  CHECK(e.components.kv_cache == 0);
}
