// The diffusers models of the zoo (memory/tables/zoo/hf_diffusers*.py): the
// Stable Diffusion UNets and VAEs by hub name against their published
// parameter counts (a snippet without a step counts the parameters its
// optimizer is given), which parts of a fine-tuning script train, LoRA through
// `unet.add_adapter`, gradient checkpointing, and the schedulers' configs.
#include <doctest/doctest.h>

#include <string>
#include <string_view>

#include "test/memory/memory_test_util.h"

using namespace tpf;

namespace {

memory::Estimate estimate_code(std::string_view code, const char* gpu = "h100") {
  static std::vector<std::unique_ptr<test::Script>> keep;  // the IR must outlive the estimate
  keep.push_back(test::load_script_text("<diffusers>.py", std::string(code)));
  memory::EstimateOptions opt;
  opt.target = test::target(gpu);
  opt.suggest = false;
  return memory::estimate(keep.back()->ir, opt);
}

bool has_unknown(const memory::Estimate& e, std::string_view what) {
  for (const auto& u : e.config.unknowns)
    if (u.what.find(what) != std::string::npos) return true;
  return false;
}

/// No blocking unknown but the batch size (the snippets without a step
/// have none).
void check_model_known(const memory::Estimate& e) {
  for (const auto& u : e.config.unknowns)
    CHECK_MESSAGE((!u.blocking || u.what.find("batch size") != std::string::npos), u.what);
}

}  // namespace

TEST_CASE("diffusers: the Stable Diffusion UNets and VAEs by hub name have the published counts") {
  // The counts diffusers' ModelMixin.num_parameters() gives for each
  // checkpoint (the Hub's safetensors metadata: SD 1.5's unet 859,520,964
  // and vae 83,653,863; SD 2.1's unet 865,910,724; SDXL base's unet
  // 2,567,463,684 and vae 83,653,863, the same architecture as SD's).
  struct Case {
    const char* cls;
    const char* repo;
    const char* subfolder;
    uint64_t params;
  } cases[] = {
      {"UNet2DConditionModel", "runwayml/stable-diffusion-v1-5", "unet", 859520964},
      {"AutoencoderKL", "runwayml/stable-diffusion-v1-5", "vae", 83653863},
      {"UNet2DConditionModel", "CompVis/stable-diffusion-v1-4", "unet", 859520964},
      {"UNet2DConditionModel", "stable-diffusion-v1-5/stable-diffusion-v1-5", "unet", 859520964},
      {"UNet2DConditionModel", "stabilityai/stable-diffusion-2-1", "unet", 865910724},
      {"UNet2DConditionModel", "stabilityai/stable-diffusion-2-1-base", "unet", 865910724},
      {"AutoencoderKL", "stabilityai/stable-diffusion-2-1", "vae", 83653863},
      {"UNet2DConditionModel", "stabilityai/stable-diffusion-xl-base-1.0", "unet", 2567463684},
      {"AutoencoderKL", "stabilityai/stable-diffusion-xl-base-1.0", "vae", 83653863},
      // google/ddpm-cifar10-32 at the repo's root: the count the golden
      // diffusers_ddpm_unet2d.py builds from the same arguments.
      {"UNet2DModel", "google/ddpm-cifar10-32", "", 35746307},
  };
  for (const Case& c : cases) {
    std::string sub = *c.subfolder ? std::string(", subfolder='") + c.subfolder + "'" : std::string();
    std::string code = std::string("import torch\nfrom diffusers import ") + c.cls + "\nm = " + c.cls +
                       ".from_pretrained('" + c.repo + "'" + sub + ")\nopt = torch.optim.SGD(m.parameters(), lr=0.1)\n";
    CAPTURE(code);
    memory::Estimate e = estimate_code(code);
    CHECK(e.params == c.params);
    CHECK(e.trainable_params == c.params);
    CHECK(e.components.weights == 4 * c.params);  // float32 without torch_dtype
    check_model_known(e);
  }
  // torch_dtype=torch.float16: two bytes a weight.
  memory::Estimate e = estimate_code(
      "import torch\nfrom diffusers import AutoencoderKL\nm = AutoencoderKL.from_pretrained("
      "'runwayml/stable-diffusion-v1-5', subfolder='vae', torch_dtype=torch.float16)\n"
      "opt = torch.optim.SGD(m.parameters(), lr=0.1)\n");
  CHECK(e.components.weights == 2 * 83653863ull);
}

TEST_CASE("diffusers: train_text_to_image.py trains the UNet only") {
  // vae.requires_grad_(False), text_encoder.requires_grad_(False): all three
  // models' weights are resident, gradients and AdamW state are the UNet's.
  memory::Estimate e = estimate_code(R"(
import torch
from diffusers import AutoencoderKL, UNet2DConditionModel
from transformers import CLIPTextModel
name = "runwayml/stable-diffusion-v1-5"
text_encoder = CLIPTextModel.from_pretrained(name, subfolder="text_encoder")
vae = AutoencoderKL.from_pretrained(name, subfolder="vae")
unet = UNet2DConditionModel.from_pretrained(name, subfolder="unet")
vae.requires_grad_(False)
text_encoder.requires_grad_(False)
opt = torch.optim.AdamW(unet.parameters(), lr=1e-4)
for step in range(10):
    pixels = torch.randn(1, 3, 256, 256)
    latents = vae.encode(pixels).latent_dist.sample() * vae.config.scaling_factor
    hidden = text_encoder(torch.randint(0, 49408, (1, 77)))[0]
    t = torch.randint(0, 1000, (1,))
    torch.nn.functional.mse_loss(unet(latents, t, hidden).sample, latents).backward()
    opt.step()
    opt.zero_grad()
)");
  CHECK(e.params == 859520964ull + 83653863ull + 123060480ull);
  CHECK(e.trainable_params == 859520964);
  CHECK(e.gradient_bytes == 4 * 859520964ull);
  check_model_known(e);
}

TEST_CASE("diffusers: unet.add_adapter(LoraConfig) trains the adapters only") {
  // train_text_to_image_lora.py's rank-4 LoRA on to_q, to_k, to_v, to_out.0
  // of SD 1.5's UNet: 797,184 parameters (diffusers' published SD 1.5 LoRA
  // of 3.3 MB in float32). The base is frozen by add_adapter itself
  // (peft's _mark_only_adapters_as_trainable), with or without the
  // script's unet.requires_grad_(False).
  for (const char* freeze : {"unet.requires_grad_(False)\n", ""}) {
    CAPTURE(freeze);
    memory::Estimate e = estimate_code(std::string(R"(
import torch
from diffusers import UNet2DConditionModel
from peft import LoraConfig
unet = UNet2DConditionModel.from_pretrained("runwayml/stable-diffusion-v1-5", subfolder="unet")
)") + freeze + R"(
unet.add_adapter(LoraConfig(r=4, lora_alpha=4, init_lora_weights="gaussian", target_modules=["to_k", "to_q", "to_v", "to_out.0"]))
opt = torch.optim.AdamW(filter(lambda p: p.requires_grad, unet.parameters()), lr=1e-4)
for step in range(10):
    latents = torch.randn(1, 4, 32, 32)
    out = unet(latents, torch.randint(0, 1000, (1,)), torch.randn(1, 77, 768)).sample
    torch.nn.functional.mse_loss(out, latents).backward()
    opt.step()
    opt.zero_grad()
)");
    CHECK(e.params == 859520964ull + 797184ull);
    CHECK(e.trainable_params == 797184);
    CHECK(e.gradient_bytes == 4 * 797184ull);
    check_model_known(e);
  }
}

TEST_CASE("diffusers: enable_gradient_checkpointing keeps the blocks' inputs only") {
  const char* step = R"(
for step in range(10):
    latents = torch.randn(8, 4, 64, 64, device="cuda")
    t = torch.randint(0, 1000, (8,), device="cuda")
    hidden = torch.randn(8, 77, 768, device="cuda")
    F.mse_loss(unet(latents, t, hidden).sample, latents).backward()
    opt.step()
    opt.zero_grad()
)";
  std::string base = R"(
import torch
import torch.nn.functional as F
from diffusers import UNet2DConditionModel
unet = UNet2DConditionModel.from_pretrained("runwayml/stable-diffusion-v1-5", subfolder="unet").cuda()
opt = torch.optim.SGD(unet.parameters(), lr=1e-5)
)";
  memory::Estimate plain = estimate_code(base + step, "h200");
  memory::Estimate ckpt = estimate_code(base + "unet.enable_gradient_checkpointing()\n" + step, "h200");
  REQUIRE(plain.components.activations > 0);
  CHECK(ckpt.config.checkpointing);
  CHECK(ckpt.config.checkpointing_origin.source == "enable_gradient_checkpointing()");
  // Each resnet and transformer block recomputed in backward: a small
  // part of what the plain forward keeps (14.1 GiB at batch 8 and 64x64
  // latents, 1.7 GiB checkpointed).
  CHECK(ckpt.components.activations * 5 < plain.components.activations);
}

TEST_CASE("diffusers: schedulers from a config keep DDPMScheduler's defaults") {
  // from_config(config) and from_pretrained(name, subfolder="scheduler") do
  // not read the config: 1000 training timesteps, epsilon prediction. The
  // config object must not become the constructor's num_train_timesteps.
  for (const char* make : {"DDPMScheduler.from_config(DDPMScheduler.load_config('x', subfolder='scheduler'))",
                           "DDPMScheduler.from_config(object())",
                           "DDPMScheduler.from_pretrained('x', subfolder='scheduler')", "DDPMScheduler()"}) {
    CAPTURE(make);
    memory::Estimate e = estimate_code(std::string(R"(
import torch
from diffusers import DDPMScheduler
s = )") + make + R"(
# 1000 * 1 + 1 parameters, and 2 more for epsilon prediction.
m = torch.nn.Sequential(torch.nn.Linear(s.config.num_train_timesteps, 1),
                        torch.nn.Linear(1, 1, bias=s.config.prediction_type == "epsilon"))
opt = torch.optim.SGD(m.parameters(), lr=0.1)
)");
    CHECK(e.params == 1001 + 2);
    check_model_known(e);
  }
}

TEST_CASE("diffusers: a checkpoint outside the table is a blocking unknown naming it") {
  memory::Estimate e = estimate_code(R"(
import torch
from diffusers import UNet2DConditionModel
unet = UNet2DConditionModel.from_pretrained("my-org/sd15-finetuned", subfolder="unet")
)");
  CHECK(has_unknown(e, "diffusers checkpoint `my-org/sd15-finetuned/unet` for "
                       "`UNet2DConditionModel.from_pretrained` is not in the built-in config table"));
  CHECK(e.verdict == memory::Verdict::Unknown);
}

TEST_CASE("diffusers: --use_ema and --mixed_precision as train_text_to_image.py reads them") {
  // EMAModel(unet.parameters()) keeps a detached float32 copy of the UNet on
  // the device; accelerator.mixed_precision == "fp16" casts the frozen VAE
  // to float16 (weight_dtype), while the UNet trains in float32.
  const char* code = R"(
import torch
from accelerate import Accelerator
from diffusers import AutoencoderKL, UNet2DConditionModel
from diffusers.training_utils import EMAModel
accelerator = Accelerator(mixed_precision=MODE)
name = "runwayml/stable-diffusion-v1-5"
vae = AutoencoderKL.from_pretrained(name, subfolder="vae")
unet = UNet2DConditionModel.from_pretrained(name, subfolder="unet")
vae.requires_grad_(False)
if EMA:
    ema_unet = UNet2DConditionModel.from_pretrained(name, subfolder="unet")
    ema_unet = EMAModel(ema_unet.parameters(), model_cls=UNet2DConditionModel, model_config=ema_unet.config)
opt = torch.optim.AdamW(unet.parameters(), lr=1e-4)
unet, opt = accelerator.prepare(unet, opt)
if EMA:
    ema_unet.to(accelerator.device)
weight_dtype = torch.float32
if accelerator.mixed_precision == "fp16":
    weight_dtype = torch.float16
vae.to(accelerator.device, dtype=weight_dtype)
for step in range(10):
    latents = vae.encode(torch.randn(1, 3, 256, 256).to(weight_dtype)).latent_dist.sample()
    out = unet(latents, torch.randint(0, 1000, (1,)), torch.randn(1, 77, 768)).sample
    accelerator.backward(torch.nn.functional.mse_loss(out.float(), latents.float()))
    opt.step()
    if EMA:
        ema_unet.step(unet.parameters())
    opt.zero_grad()
)";
  auto run = [&](const char* mode, bool ema) {
    std::string c = std::string("MODE = ") + mode + "\nEMA = " + (ema ? "True" : "False") + "\n" + code;
    return estimate_code(c, "h200");
  };
  const uint64_t unet = 859520964, vae = 83653863;
  memory::Estimate fp16 = run("'fp16'", false), fp32 = run("'no'", false), none = run("None", false),
                   ema = run("'fp16'", true);
  CHECK(fp16.components.weights == 4 * unet + 2 * vae);
  CHECK(fp32.components.weights == 4 * unet + 4 * vae);
  CHECK(none.components.weights == 4 * unet + 4 * vae);
  CHECK(ema.components.weights == 4 * unet + 2 * vae + 4 * unet);
  CHECK(ema.params == unet + vae);  // the EMA copy is no parameter
  CHECK(ema.trainable_params == unet);
}

TEST_CASE("diffusers: an argument the zoo does not build is a blocking unknown naming it") {
  struct Case {
    const char* call;
    const char* what;
  } cases[] = {
      {"UNet2DModel(sample_size=32, time_embedding_type='fourier')",
       "diffusers `UNet2DModel(time_embedding_type=...)` is not modeled"},
      {"UNet2DConditionModel(dual_cross_attention=True)",
       "diffusers `UNet2DConditionModel(dual_cross_attention=...)` is not modeled"},
      {"UNet2DConditionModel(down_block_types=('SimpleCrossAttnDownBlock2D',) * 4)",
       "diffusers `UNet2DConditionModel down block SimpleCrossAttnDownBlock2D` is not modeled"},
      {"AutoencoderKL(down_block_types=('AttnDownEncoderBlock2D',))",
       "diffusers `AutoencoderKL block AttnDownEncoderBlock2D` is not modeled"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.call);
    memory::Estimate e = estimate_code(std::string("import torch\nimport diffusers\nm = diffusers.") + c.call +
                                       "\nopt = torch.optim.SGD(m.parameters(), lr=0.1)\n");
    CHECK(has_unknown(e, c.what));
    CHECK(e.verdict == memory::Verdict::Unknown);
  }
  // The defaults are built: UNet2DConditionModel() is SD 1.x's architecture
  // with 1280-wide text (the class's default cross_attention_dim): each of
  // the 16 cross-attentions' to_k and to_v reads 512 more inputs, 2 * 512 *
  // (2 * (320 + 640 + 1280) + 1280 + 3 * (1280 + 640 + 320)) = 12,779,520
  // parameters more than SD 1.5's UNet.
  memory::Estimate e = estimate_code(
      "import torch\nfrom diffusers import UNet2DConditionModel\nm = UNet2DConditionModel()\n"
      "opt = torch.optim.SGD(m.parameters(), lr=0.1)\n");
  check_model_known(e);
  CHECK(e.params == 859520964ull + 12779520ull);
}
