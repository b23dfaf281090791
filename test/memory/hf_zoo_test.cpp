// The generated Hugging Face table (memory/tables/hf_litgpt.def, tools/hf_table.py)
// built by the zoo, PEFT's LoRA and bitsandbytes' quantized weights: exact
// parameter counts, trainable counts and weight bytes.
#include <doctest/doctest.h>

#include <string>
#include <string_view>

#include "test/memory/memory_test_util.h"

using namespace tpf;

namespace {

memory::Estimate estimate_code(std::string_view code) {
  static std::vector<std::unique_ptr<test::Script>> keep;  // the IR must outlive the estimate
  keep.push_back(test::load_script_text("<hf>.py", std::string(code)));
  memory::EstimateOptions opt;
  opt.target = test::target("h100");
  opt.suggest = false;
  return memory::estimate(keep.back()->ir, opt);
}

struct GenRow {
  std::string_view name, family;
  uint64_t params;
};
constexpr GenRow kGen[] = {
#define TPF_HF_GEN(name, litgpt, family, layers, hidden, heads, kv, hd, inter, vocab, pos, tied, \
                   bias, experts, topk, params)                                                  \
  {name, family, params},
#include "memory/tables/hf_litgpt.def"
#undef TPF_HF_GEN
};

uint64_t row_params(std::string_view name) {
  for (const GenRow& r : kGen)
    if (r.name == name) return r.params;
  return 0;
}

const char* kTrainTail = "import torch\nopt = torch.optim.SGD(m.parameters(), lr=0.1)\n";

/// The snippets build a model and an optimizer and run no step: the batch
/// size is the only blocking unknown they may have.
void check_model_known(const memory::Estimate& e) {
  for (const auto& u : e.config.unknowns)
    CHECK_MESSAGE((!u.blocking || u.what.find("batch size") != std::string::npos), u.what);
}

}  // namespace

TEST_CASE("hf table: the generator's counts are the published ones") {
  // Published counts of the checkpoints: pythia, transformers'
  // GPTNeoXForCausalLM.num_parameters() as EleutherAI's pythia scripts list
  // them; phi-2, its safetensors metadata (F16: 2,779,683,840); Gemma and
  // Gemma 2, keras-team/keras-hub's presets (gemma_presets.py, the same
  // weights); Mixtral 8x7B, keras-hub's mixtral_presets.py (46,702,792,704:
  // every expert); Llama 2 70B, Llama 3 70B and 405B, Phi-3-mini, Qwen2.5,
  // the Hub's model pages (safetensors parameter counts).
  struct Case {
    const char* name;
    uint64_t published;
  } cases[] = {
      {"EleutherAI/pythia-14m", 14067712},
      {"EleutherAI/pythia-160m", 162322944},
      {"EleutherAI/pythia-1.4b", 1414647808},
      {"EleutherAI/pythia-12b", 11846072320},
      {"microsoft/phi-2", 2779683840},
      {"google/gemma-2b", 2506172416},
      {"google/gemma-7b", 8537680896},
      {"google/gemma-2-2b", 2614341888},
      {"google/gemma-2-9b", 9241705984},
      {"google/gemma-2-27b", 27227128320},
      {"mistralai/Mixtral-8x7B-v0.1", 46702792704},
      {"meta-llama/Llama-2-70b-hf", 68976648192},
      {"meta-llama/Meta-Llama-3-70B", 70553706496},
      {"meta-llama/Meta-Llama-3.1-405B", 405853388800},
      {"microsoft/Phi-3-mini-4k-instruct", 3821079552},
      {"Qwen/Qwen2.5-3B", 3085938688},
      {"Qwen/Qwen2.5-72B", 72706203648},
  };
  for (const Case& c : cases) {
    CAPTURE(c.name);
    CHECK(row_params(c.name) == c.published);
  }
}

TEST_CASE("hf table: every generated row builds with its count") {
  // The zoo's builders (hf_llama.py, hf_neox.py) against the generator's
  // formula for transformers' module layout, row by row: a builder that
  // drops or adds a tensor fails here.
  REQUIRE(std::size(kGen) >= 80);
  for (const GenRow& r : kGen) {
    CAPTURE(r.name);
    std::string code =
        "from transformers import AutoModelForCausalLM\nm = "
        "AutoModelForCausalLM.from_pretrained('" +
        std::string(r.name) + "')\n" + kTrainTail;
    memory::Estimate e = estimate_code(code);
    CHECK(e.params == r.params);
    check_model_known(e);
  }
}

TEST_CASE("hf table: short names and heads") {
  struct Case {
    const char* code;
    uint64_t params;
  } cases[] = {
      // The Hub name without its organization.
      {"from transformers import AutoModelForCausalLM\nm = "
       "AutoModelForCausalLM.from_pretrained('pythia-160m')\n",
       162322944},
      // GPTNeoXModel: no embed_out (50,304 x 768).
      {"from transformers import AutoModel\nm = "
       "AutoModel.from_pretrained('EleutherAI/pythia-160m')\n",
       162322944 - 50304 * 768},
      // A classification head on Gemma: the score Linear (2 labels).
      {"from transformers import AutoModelForSequenceClassification\n"
       "m = AutoModelForSequenceClassification.from_pretrained('google/gemma-2b')\n",
       2506172416 + 2 * 2048},
  };
  for (const Case& c : cases) {
    CAPTURE(c.code);
    CHECK(estimate_code(std::string(c.code) + kTrainTail).params == c.params);
  }
}

TEST_CASE("hf table: OPT, LLaMA 1 and ViT (hand rows) have their published counts") {
  // OPT: 125,239,296 (peft-internal-testing/opt-125m's count), opt-350m's
  // 331,196,416, opt-1.3b's 1,315,758,080 (a DeepSpeed LoRA example's
  // printed count); LLaMA 7B as peft prints it for alpaca-lora; ViT,
  // transformers' ViTForImageClassification on vit-base-patch16-224 (the
  // same 86,567,656 as torchvision's vit_b_16) and ViTModel with its pooler.
  struct Case {
    const char* code;
    uint64_t params;
  } cases[] = {
      {"from transformers import AutoModelForCausalLM\nm = "
       "AutoModelForCausalLM.from_pretrained('facebook/opt-125m')\n",
       125239296},
      {"from transformers import OPTForCausalLM\nm = "
       "OPTForCausalLM.from_pretrained('facebook/opt-350m')\n",
       331196416},
      {"from transformers import AutoModelForCausalLM\nm = "
       "AutoModelForCausalLM.from_pretrained('facebook/opt-1.3b')\n",
       1315758080},
      {"from transformers import LlamaForCausalLM\nm = "
       "LlamaForCausalLM.from_pretrained('huggyllama/llama-7b')\n",
       6738415616},
      {"from transformers import AutoModelForImageClassification\n"
       "m = AutoModelForImageClassification.from_pretrained('google/vit-base-patch16-224')\n",
       86567656},
      {"from transformers import ViTModel\nm = "
       "ViTModel.from_pretrained('google/vit-base-patch16-224-in21k')\n",
       86389248},
      // Whisper: keras-hub's whisper presets (the same weights).
      {"from transformers import WhisperForConditionalGeneration\n"
       "m = WhisperForConditionalGeneration.from_pretrained('openai/whisper-tiny')\n",
       37760640},
      {"from transformers import AutoModelForSpeechSeq2Seq\n"
       "m = AutoModelForSpeechSeq2Seq.from_pretrained('openai/whisper-small')\n",
       241734912},
      // A new head on the in21k backbone: 10 labels.
      {"from transformers import ViTForImageClassification\n"
       "m = ViTForImageClassification.from_pretrained('google/vit-base-patch16-224-in21k', "
       "num_labels=10)\n",
       86389248 - 590592 + 7690},
  };
  for (const Case& c : cases) {
    CAPTURE(c.code);
    memory::Estimate e = estimate_code(std::string(c.code) + kTrainTail);
    CHECK(e.params == c.params);
    check_model_known(e);
  }
}

TEST_CASE("hf table: BLOOM, CLIP and DeBERTa-v3 (hand rows) have their published counts") {
  // BLOOM: bloom-560m's 559,214,592 and bloom-7b1's 7,069,016,064 (the
  // model cards' counts). CLIP: CLIPModel of clip-vit-base-patch32,
  // 151,277,313 (the count printed in open_clip's and transformers' docs);
  // the text encoders of SD 1.5 (123,060,480), SD 2.1 (340,387,840) and
  // SDXL's second (694,659,840, with its projection), by subfolder.
  // DeBERTa-v3: deberta-v3-base with a 2-label head, 184,423,682 (the count
  // fine-tuning notebooks print; the model card's 98M embedding + 86M
  // backbone), deberta-v3-large's bare model 434,012,160 (131M + 304M).
  struct Case {
    const char* code;
    uint64_t params;
  } cases[] = {
      {"from transformers import AutoModelForCausalLM\nm = "
       "AutoModelForCausalLM.from_pretrained('bigscience/bloom-560m')\n",
       559214592},
      {"from transformers import BloomForCausalLM\nm = "
       "BloomForCausalLM.from_pretrained('bigscience/bloomz-7b1')\n",
       7069016064},
      {"from transformers import CLIPModel\nm = CLIPModel.from_pretrained('openai/clip-vit-base-patch32')\n",
       151277313},
      {"from transformers import CLIPTextModel\nm = CLIPTextModel.from_pretrained("
       "'runwayml/stable-diffusion-v1-5', subfolder='text_encoder')\n",
       123060480},
      {"from transformers import CLIPTextModel\nm = CLIPTextModel.from_pretrained("
       "'stabilityai/stable-diffusion-2-1', subfolder='text_encoder')\n",
       340387840},
      {"from transformers import CLIPTextModelWithProjection\nm = CLIPTextModelWithProjection.from_pretrained("
       "'stabilityai/stable-diffusion-xl-base-1.0', subfolder='text_encoder_2')\n",
       694659840},
      {"from transformers import AutoModelForSequenceClassification\nm = "
       "AutoModelForSequenceClassification.from_pretrained('microsoft/deberta-v3-base', num_labels=2)\n",
       184423682},
      {"from transformers import AutoModel\nm = AutoModel.from_pretrained('microsoft/deberta-v3-large')\n",
       434012160},
  };
  for (const Case& c : cases) {
    CAPTURE(c.code);
    memory::Estimate e = estimate_code(std::string(c.code) + kTrainTail);
    CHECK(e.params == c.params);
    check_model_known(e);
  }
}

TEST_CASE("peft: LoRA trains r * (in + out) per targeted Linear, nothing else") {
  // alpaca-lora's finetune.py defaults on LLaMA 7B: r=8 on q_proj and v_proj
  // of 32 layers, 32 * 2 * 8 * (4096 + 4096) = 4,194,304 trainable, as
  // peft's print_trainable_parameters() reports it ("trainable params:
  // 4194304 || all params: 6742609920").
  const char* base = R"(
import torch
from peft import LoraConfig, get_peft_model
from transformers import LlamaForCausalLM
m = LlamaForCausalLM.from_pretrained("meta-llama/Llama-2-7b-hf", torch_dtype=torch.float16)
)";
  struct Case {
    const char* config;
    uint64_t trainable, tensors;
  } cases[] = {
      {"LoraConfig(r=8, lora_alpha=16, target_modules=['q_proj', 'v_proj'], lora_dropout=0.05)",
       4194304, 128},
      // peft's default targets for Llama are q_proj and v_proj too.
      {"LoraConfig(r=8, lora_alpha=16, task_type='CAUSAL_LM')", 4194304, 128},
      // Every projection of attention and MLP, r=16: per layer
      // 16 * (4 * 8192 + 3 * (4096 + 11008)) = 1,249,280.
      {"LoraConfig(r=16, target_modules=['q_proj', 'k_proj', 'v_proj', 'o_proj', 'gate_proj', "
       "'up_proj', "
       "'down_proj'])",
       32 * 1249280, 448},
      // all-linear: the same seven, never lm_head.
      {"LoraConfig(r=16, target_modules='all-linear')", 32 * 1249280, 448},
      // A target no module has: nothing trains.
      {"LoraConfig(r=8, target_modules=['nope'])", 0, 0},
  };
  for (const Case& c : cases) {
    CAPTURE(c.config);
    std::string code = std::string(base) + "m = get_peft_model(m, " + c.config + ")\n" +
                       "opt = torch.optim.AdamW(m.parameters(), lr=1e-4)\n";
    memory::Estimate e = estimate_code(code);
    CHECK(e.params == 6738415616 + c.trainable);
    CHECK(e.trainable_params == c.trainable);
    // peft builds the adapters in float32 over a 16-bit base
    // (get_peft_model's autocast_adapter_dtype=True).
    CHECK(e.gradient_bytes == 4 * c.trainable);
    // AdamW: two float32 states a weight and a float32 step a tensor (two
    // tensors an adapter).
    CHECK(e.optimizer_state_bytes == 8 * c.trainable + 4 * c.tensors);
    check_model_known(e);
  }
}

TEST_CASE("peft: modules_to_save keeps the original frozen beside a trainable copy") {
  // peft's sequence-classification example on roberta-base, r=8 on query and
  // value, modules_to_save=["classifier"]: print_trainable_parameters()
  // says "trainable params: 887,042 || all params: 125,534,212". The LoRA
  // part is 12 * 2 * 8 * (768 + 768) = 294,912; the classifier head
  // (dense 768x768 + out_proj 768x2, with biases) 592,130, once frozen and
  // once trained.
  memory::Estimate e = estimate_code(R"(
import torch
from peft import LoraConfig, get_peft_model
from transformers import AutoModelForSequenceClassification
m = AutoModelForSequenceClassification.from_pretrained("roberta-base", num_labels=2)
m = get_peft_model(m, LoraConfig(r=8, lora_alpha=16, target_modules=["query", "value"], modules_to_save=["classifier"]))
opt = torch.optim.AdamW(m.parameters(), lr=1e-4)
)");
  CHECK(e.params == 125534212);
  CHECK(e.trainable_params == 887042);
  CHECK(e.gradient_bytes == 4 * 887042);
  check_model_known(e);
}

TEST_CASE("peft: PeftModel.from_pretrained freezes the base, trains per is_trainable") {
  const char* base = R"(
import torch
from peft import LoraConfig, PeftModel
from transformers import AutoModelForCausalLM
m = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-2-7b-hf")
)";
  // Inference (peft's default is_trainable=False): everything frozen, the
  // adapter's weights left out with a note that does not block.
  memory::Estimate e = estimate_code(std::string(base) + "m = PeftModel.from_pretrained(m, 'out/adapter')\n" + kTrainTail);
  CHECK(e.params == 6738415616);
  CHECK(e.trainable_params == 0);
  check_model_known(e);
  // is_trainable=True with the adapter's config given: the LoRA count.
  e = estimate_code(std::string(base) +
                    "m = PeftModel.from_pretrained(m, 'out/adapter', is_trainable=True, "
                    "config=LoraConfig(r=8, target_modules=['q_proj', 'v_proj']))\n" +
                    kTrainTail);
  CHECK(e.params == 6738415616 + 4194304);
  CHECK(e.trainable_params == 4194304);
  // is_trainable=True without it: what trains is in adapter_config.json.
  e = estimate_code(std::string(base) + "m = PeftModel.from_pretrained(m, 'out/adapter', is_trainable=True)\n" +
                    kTrainTail);
  bool blocked = false;
  for (const auto& u : e.config.unknowns)
    if (u.blocking && u.what.find("is_trainable=True") != std::string::npos) blocked = true;
  CHECK(blocked);
}

TEST_CASE("peft: GPT-2's Conv1D and Pythia's fused query_key_value are targets") {
  struct Case {
    const char* model;
    const char* targets;
    uint64_t params, trainable;
  } cases[] = {
      // c_attn: Conv1D(768 -> 2304) in 12 blocks: 12 * 8 * (768 + 2304).
      {"gpt2", "None", 124439808, 12 * 8 * (768 + 2304)},
      // query_key_value: Linear(768 -> 2304) in 12 layers.
      {"EleutherAI/pythia-160m", "None", 162322944, 12 * 8 * (768 + 2304)},
  };
  for (const Case& c : cases) {
    CAPTURE(c.model);
    std::string code = std::string(
                           "import torch\nfrom peft import LoraConfig, get_peft_model\n"
                           "from transformers import AutoModelForCausalLM\n"
                           "m = AutoModelForCausalLM.from_pretrained('") +
                       c.model +
                       "')\nm = get_peft_model(m, LoraConfig(r=8, target_modules=" + c.targets +
                       "))\n" + "opt = torch.optim.Adam(m.parameters(), lr=1e-4)\n";
    memory::Estimate e = estimate_code(code);
    CHECK(e.params == c.params + c.trainable);
    CHECK(e.trainable_params == c.trainable);
    CHECK(e.optimizer_state_bytes ==
          8 * c.trainable + 4 * 24);  // Adam: two states a weight, a step a tensor
  }
}

TEST_CASE("peft: no target_modules on a model peft has no default for is a blocking unknown") {
  memory::Estimate e = estimate_code(R"(
import torch
from peft import LoraConfig, get_peft_model
from transformers import ViTForImageClassification
m = ViTForImageClassification.from_pretrained("google/vit-base-patch16-224")
m = get_peft_model(m, LoraConfig(r=8))
opt = torch.optim.AdamW(m.parameters())
)");
  bool named = false;
  for (const auto& u : e.config.unknowns)
    named = named || (u.blocking && u.what.find("without `target_modules`") != std::string::npos);
  CHECK(named);
}

TEST_CASE("optimizer: frozen parameters handed to the optimizer get no state") {
  // accelerate's examples/cv_example.py: the backbone is frozen, the head
  // trains, and Adam is given model.parameters(); torch creates state only
  // for parameters with a gradient.
  memory::Estimate e = estimate_code(R"(
import torch
import torch.nn as nn
m = nn.Sequential(nn.Linear(1000, 1000), nn.ReLU(), nn.Linear(1000, 10))
for p in m.parameters():
    p.requires_grad = False
for p in m[2].parameters():
    p.requires_grad = True
opt = torch.optim.Adam(m.parameters(), lr=1e-3)
)");
  CHECK(e.params == 1001000 + 10010);
  CHECK(e.trainable_params == 10010);
  CHECK(e.gradient_bytes == 4 * 10010);
  CHECK(e.optimizer_state_bytes ==
        8 * 10010 + 4 * 2);  // exp_avg, exp_avg_sq; a float32 step a tensor
}

TEST_CASE("bitsandbytes: quantized weights cost what bitsandbytes stores") {
  // SmolLM-135M: 30 layers of seven Linears, 3,538,944 weights a layer,
  // 106,168,320 in all, every tensor a multiple of 64 and 256 * 64 apart
  // from the smallest; the embedding (tied to lm_head), the norms and the
  // rest stay 16-bit: 28,346,688 parameters, 56,693,376 bytes; the
  // rotary inv_freq buffer (32 values) is a buffer.
  const uint64_t quantized = 106168320, rest_bytes = 2 * 28346688;
  const uint64_t linears = 30 * 7;
  struct Case {
    const char* load;
    uint64_t weight_bytes;
  } cases[] = {
      // LLM.int8: a byte a weight plus a float32 scale per output row
      // (per layer 576+192+192+576+1536+1536+576 = 5,184 rows).
      {"load_in_8bit=True", quantized + 4 * 30 * 5184 + rest_bytes},
      // NF4: half a byte a weight plus a float32 absmax per 64.
      {"load_in_4bit=True", quantized / 2 + quantized / 64 * 4 + rest_bytes},
      {"quantization_config=BitsAndBytesConfig(load_in_4bit=True, bnb_4bit_quant_type='nf4', "
       "bnb_4bit_compute_dtype=torch.bfloat16)",
       quantized / 2 + quantized / 64 * 4 + rest_bytes},
      // Double quantization: the absmax in 8 bits, a float32 absmax per 256
      // of them, and per tensor a 256-entry float32 code and an offset.
      // Blocks of 256 * 64 weights: q and o 20.25, k and v 6.75, the MLP
      // 54 each, rounded up per tensor: 21 + 7 + 7 + 21 + 3 * 54 = 218 a layer.
      {"quantization_config=BitsAndBytesConfig(load_in_4bit=True, bnb_4bit_use_double_quant=True)",
       quantized / 2 + quantized / 64 + 4 * 30 * 218 + linears * 1028 + rest_bytes},
  };
  for (const Case& c : cases) {
    CAPTURE(c.load);
    std::string code =
        std::string(
            "import torch\nfrom transformers import AutoModelForCausalLM, BitsAndBytesConfig\n"
            "m = AutoModelForCausalLM.from_pretrained('HuggingFaceTB/SmolLM-135M', ") +
        c.load + ")\n" + kTrainTail;
    memory::Estimate e = estimate_code(code);
    CHECK(e.params == 134515008);
    CHECK(e.trainable_params == 28346688);  // the quantized weights are frozen
    CHECK(e.footprint.weights - e.buffer_bytes == c.weight_bytes);
    check_model_known(e);
  }
}

TEST_CASE("peft: QLoRA trains the adapters only, over a 4-bit base") {
  // The QLoRA recipe: 4-bit base, prepare_model_for_kbit_training (the
  // 16-bit rest frozen and cast to float32, gradient checkpointing on),
  // LoRA r=16 on every projection: per layer
  // 16 * (4 * (576 + 576) - 2 * 384 + 3 * (576 + 1536)) = 16 * 10,176.
  memory::Estimate e = estimate_code(R"(
import torch
from peft import LoraConfig, get_peft_model, prepare_model_for_kbit_training
from transformers import AutoModelForCausalLM, BitsAndBytesConfig
bnb = BitsAndBytesConfig(load_in_4bit=True, bnb_4bit_quant_type="nf4", bnb_4bit_use_double_quant=True,
                         bnb_4bit_compute_dtype=torch.bfloat16)
m = AutoModelForCausalLM.from_pretrained("HuggingFaceTB/SmolLM-135M", quantization_config=bnb)
m = prepare_model_for_kbit_training(m)
m = get_peft_model(m, LoraConfig(r=16, lora_alpha=32, target_modules="all-linear", task_type="CAUSAL_LM"))
opt = torch.optim.AdamW(m.parameters(), lr=2e-4)
)");
  const uint64_t lora = 30 * 16 * 10176;
  CHECK(e.trainable_params == lora);
  CHECK(e.params == 134515008 + lora);
  CHECK(e.gradient_bytes == 4 * lora);  // the adapters are built in float32
  CHECK(e.optimizer_state_bytes == 8 * lora + 4 * 30 * 7 * 2);
  CHECK(e.config.checkpointing);
}

TEST_CASE("trainer: the Trainer steps on per_device_train_batch_size, not an effective batch") {
  // alpaca-lora's finetune.py: batch_size=128 is the effective batch,
  // micro_batch_size=4 the Trainer's, 32 accumulation steps between them.
  memory::Estimate e = estimate_code(R"(
import transformers
from transformers import AutoModelForCausalLM
batch_size = 128
micro_batch_size = 4
model = AutoModelForCausalLM.from_pretrained("gpt2")
args = transformers.TrainingArguments(per_device_train_batch_size=micro_batch_size,
                                      gradient_accumulation_steps=batch_size // micro_batch_size,
                                      output_dir="out")
block_size = 64
trainer = transformers.Trainer(model=model, args=args, train_dataset=None)
trainer.train()
)");
  CHECK(e.config.batch_size.value == 4);
  CHECK(e.config.batch_size.origin.line == 7);
  CHECK(e.config.batch_size.origin.source ==
        "TrainingArguments(per_device_train_batch_size=...) (not 128, line 4)");
  CHECK(e.config.grad_accum.value == 32);
}
