"""PEFT's LoRA (peft 0.x: LoraConfig, get_peft_model,
prepare_model_for_kbit_training) and transformers' BitsAndBytesConfig, as
the estimator's interpreter runs them.

get_peft_model does what peft's LoraModel does to the parameters: every
targeted Linear (or GPT-2's Conv1D) is wrapped in a layer holding the
frozen base layer and two new trainable Linears, lora_A (in -> r) and
lora_B (r -> out), with no bias, r * (in + out) parameters; everything
else is frozen (requires_grad=False: no gradient, no optimizer state),
except biases under bias="all"/"lora_only"; each module of
modules_to_save is kept frozen beside a trainable deep copy
(ModulesToSaveWrapper). The forward adds lora_B(lora_A(dropout(x))) * alpha / r
to the base output, so activations still flow through the frozen base.
A target is matched as peft's check_target_module_exists does for a list:
the module's full name equals the entry or ends with "." + entry;
"all-linear" is every Linear but the output head. Default targets are
peft's TRANSFORMERS_MODELS_TO_LORA_TARGET_MODULES_MAPPING
(src/peft/utils/constants.py, peft 0.20), under the zoo's family names.
This file is interpreted by tpf-analyze, never imported by it.
"""
import copy

import torch
import torch.nn as nn

from tpf_zoo.hf_models import Conv1D

# peft's default target_modules per transformers model_type, keyed by the
# zoo family (hf_llama serves llama/mistral/qwen2/phi3: peft's "llama",
# "mistral", "qwen2" entries agree; Phi-3 checkpoints name qkv_proj, which
# the zoo splits, so its default is the Llama one).
DEFAULT_TARGETS = {
    "llama": ["q_proj", "v_proj"],
    "gemma": ["q_proj", "v_proj"],
    "gemma2": ["q_proj", "v_proj"],
    "mixtral": ["q_proj", "v_proj"],
    "phi": ["q_proj", "v_proj", "fc1", "fc2"],
    "neox": ["query_key_value"],
    "gpt2": ["c_attn"],
    "bert": ["query", "value"],
    "roberta": ["query", "value"],
    "distilbert": ["q_lin", "v_lin"],
    "t5": ["q", "v"],
    "opt": ["q_proj", "v_proj"],
    "opt350": ["q_proj", "v_proj"],
    "bloom": ["query_key_value"],
    "deberta_v2": ["query_proj", "value_proj"],
}

# The output layers transformers keeps unquantized and "all-linear" skips.
OUTPUT_HEADS = ["lm_head", "embed_out", "score", "classifier"]


class LoraConfig:
    def __init__(self, r=8, lora_alpha=8, target_modules=None, lora_dropout=0.0, bias="none", task_type=None,
                 modules_to_save=None, fan_in_fan_out=False, use_rslora=False, use_dora=False, **kwargs):
        self.r = r
        self.lora_alpha = lora_alpha
        self.target_modules = target_modules
        self.lora_dropout = lora_dropout
        self.bias = bias
        self.task_type = task_type
        self.modules_to_save = modules_to_save
        self.use_dora = use_dora
        self.peft_type = "LORA"


class BitsAndBytesConfig:
    """transformers' BitsAndBytesConfig: what from_pretrained reads."""

    def __init__(self, load_in_8bit=False, load_in_4bit=False, llm_int8_threshold=6.0,
                 llm_int8_skip_modules=None, bnb_4bit_compute_dtype=None, bnb_4bit_quant_type="fp4",
                 bnb_4bit_use_double_quant=False, **kwargs):
        self.load_in_8bit = load_in_8bit
        self.load_in_4bit = load_in_4bit
        self.llm_int8_skip_modules = llm_int8_skip_modules
        self.bnb_4bit_compute_dtype = bnb_4bit_compute_dtype
        self.bnb_4bit_quant_type = bnb_4bit_quant_type
        self.bnb_4bit_use_double_quant = bnb_4bit_use_double_quant


class LoraLayer(nn.Module):
    """peft's lora.Linear: base_layer plus lora_A, lora_B."""

    def __init__(self, base_layer, in_features, out_features, r, alpha, dropout):
        super().__init__()
        self.base_layer = base_layer
        self.lora_dropout = nn.Dropout(dropout)
        self.lora_A = nn.Linear(in_features, r, bias=False)
        self.lora_B = nn.Linear(r, out_features, bias=False)
        self.scaling = alpha / r

    def forward(self, x, *args, **kwargs):
        result = self.base_layer(x)
        return result + self.lora_B(self.lora_A(self.lora_dropout(x))) * self.scaling


def _features(module):
    """(in, out) of a Linear or a GPT-2 Conv1D, else None."""
    if isinstance(module, nn.Linear):
        return (module.in_features, module.out_features)
    if isinstance(module, Conv1D):
        return (module.weight.shape[0], module.weight.shape[1])
    return None


def _matches(name, targets):
    if targets == "all-linear":
        return name.split(".")[-1] not in OUTPUT_HEADS
    for t in targets:
        if name == t or name.endswith("." + t):
            return True
    return False


def _parent(model, name):
    parts = name.split(".")
    parent = model
    for p in parts[:-1]:
        parent = getattr(parent, p)
    return parent, parts[-1]


def get_peft_model(model, peft_config, adapter_name="default", **kwargs):
    targets = peft_config.target_modules
    if targets is None:
        family = model.config.model_type if hasattr(model, "config") else None
        if family not in DEFAULT_TARGETS:
            # peft raises: "Please specify `target_modules` in `peft_config`".
            torch._tpf_blocking_unknown("`LoraConfig` without `target_modules` on a model peft has no default for")
            return model
        targets = DEFAULT_TARGETS[family]
    if isinstance(targets, str) and targets != "all-linear":
        targets = [targets]
    for p in model.parameters():
        p.requires_grad = False
    found = []
    for name, module in list(model.named_modules()):
        if name == "" or not _matches(name, targets):
            continue
        feats = _features(module)
        if feats is not None:
            found.append((name, module, feats))
    for name, module, feats in found:
        parent, child = _parent(model, name)
        layer = LoraLayer(module, feats[0], feats[1], peft_config.r, peft_config.lora_alpha, peft_config.lora_dropout)
        setattr(parent, child, layer)
        if peft_config.bias == "lora_only" and getattr(module, "bias", None) is not None:
            module.bias.requires_grad = True
    if peft_config.bias == "all":
        for n, p in model.named_parameters():
            if n.endswith("bias"):
                p.requires_grad = True
    if peft_config.modules_to_save is not None:
        _set_trainable(model, peft_config.modules_to_save)
    return model


class ModulesToSaveWrapper(nn.Module):
    """peft's ModulesToSaveWrapper (utils/other.py, peft 0.20): the original
    module stays, frozen, and a deep copy of it (modules_to_save["default"])
    trains fully and runs the forward: both copies' weights are resident."""

    def __init__(self, module):
        super().__init__()
        self.original_module = module
        self.modules_to_save = nn.ModuleDict({"default": copy.deepcopy(module)})
        for p in self.original_module.parameters():
            p.requires_grad = False
        for p in self.modules_to_save["default"].parameters():
            p.requires_grad = True

    def forward(self, *args, **kwargs):
        return self.modules_to_save["default"](*args, **kwargs)


def _set_trainable(model, module_names):
    """peft's _set_trainable: every module whose full name ends with one of
    module_names (a plain string suffix, as peft matches) is wrapped."""
    if isinstance(module_names, str):
        module_names = [module_names]
    found = []
    for name, module in list(model.named_modules()):
        if name != "" and any(name.endswith(k) for k in module_names):
            found.append(name)
    for name in found:
        parent, child = _parent(model, name)
        setattr(parent, child, ModulesToSaveWrapper(getattr(parent, child)))


def peft_model_from_pretrained(model, model_id, adapter_name="default", is_trainable=False, config=None, **kwargs):
    """PeftModel.from_pretrained(model, adapter_dir): a saved adapter on the
    base model. Its r and target modules are in the adapter's
    adapter_config.json, which the estimate does not read, unless `config=`
    gives the LoraConfig. is_trainable=False (peft's default) loads it for
    inference: every parameter frozen, the adapter's few weights not counted
    without a config (a note says so). is_trainable=True trains the adapter
    only: without a config that count is unknown."""
    if config is not None and getattr(config, "peft_type", None) == "LORA":
        model = get_peft_model(model, config)
        if not is_trainable:
            for p in model.parameters():
                p.requires_grad = False
        return model
    for p in model.parameters():
        p.requires_grad = False
    if is_trainable:
        torch._tpf_blocking_unknown(
            "`PeftModel.from_pretrained(..., is_trainable=True)`: the adapter's trainable parameters are in its "
            "adapter_config.json, which is not read (pass config=LoraConfig(...))")
    else:
        torch._tpf_note_unknown(
            "`PeftModel.from_pretrained`: the adapter's weights (its adapter_config.json) are not counted; the base "
            "model is frozen")
    return model


def prepare_model_for_kbit_training(model, use_gradient_checkpointing=True, gradient_checkpointing_kwargs=None,
                                    **kwargs):
    """Freezes the base model, casts its 16-bit parameters (not the quantized
    weights) to float32 and, on a quantized model, turns on gradient
    checkpointing (peft/utils/other.py)."""
    for p in model.parameters():
        p.requires_grad = False
    torch._tpf_upcast_unquantized(model)
    if use_gradient_checkpointing and torch._tpf_is_quantized(model):
        model.gradient_checkpointing_enable()
    return model


prepare_model_for_int8_training = prepare_model_for_kbit_training


def quantize_model(model, mode, skip):
    """transformers' replace_with_bnb_linear: every Linear and Conv1D but the
    skipped ones (by default the output head) becomes bitsandbytes'
    Linear8bitLt / Linear4bit; their weights are stored quantized."""
    if skip is None:
        skip = OUTPUT_HEADS
    for name, module in list(model.named_modules()):
        if name == "" or name.split(".")[-1] in skip:
            continue
        feats = _features(module)
        if feats is not None:
            torch._tpf_quantize(module.weight, mode, feats[1])
    return model


def get_peft_model_state_dict(model, state_dict=None, adapter_name="default", **kwargs):
    return {}


def set_peft_model_state_dict(model, peft_model_state_dict, adapter_name="default", **kwargs):
    return None
