// diffusers: the models built from their arguments (UNet2DModel,
// UNet2DConditionModel, AutoencoderKL: memory/tables/zoo/hf_diffusers*.py),
// the same models by hub name from the published configs
// (zoo/hf_diffusers_configs.py), and the noise schedulers.
// requires: interp.h, zoo.cpp's zoo units. produces: zoo module instances.
#include <string>

#include "memory/interp/interp.h"
#include "memory/interp/modules.h"

namespace tpf::memory {

Value zoo_value(Interp& in, std::string_view file, std::string_view name);

namespace {

struct ModelRow {
  std::string_view cls, file;
};
/// The models diffusers exports under these names, with the zoo file that
/// builds them.
constexpr ModelRow kModels[] = {
    {"UNet2DModel", "hf_diffusers"},
    {"UNet2DConditionModel", "hf_diffusers_sd"},
    {"AutoencoderKL", "hf_diffusers_vae"},
};

const ModelRow* model_row(std::string_view cls) {
  for (const ModelRow& r : kModels)
    if (r.cls == cls) return &r;
  return nullptr;
}

void record(Interp& in, std::string name, std::string_view cls, const char* how, Value m) {
  in.cfg.models.push_back(
      {std::move(name), std::string(cls), {in.user_line(), how}, 0, m.kind == VKind::Obj ? m.a : UINT32_MAX});
}

/// torch_dtype= of from_pretrained: a torch dtype or its name.
void apply_dtype(Interp& in, Value m, Args& a) {
  auto dt = a.kwarg(in, "torch_dtype");
  if (!dt || !in.is_module(m)) return;
  std::optional<Dtype> d;
  if (dt->kind == VKind::Dtype) d = static_cast<Dtype>(dt->a);
  else if (auto s = in.as_str(*dt)) d = parse_dtype(*s);
  if (d) convert_module(in, m, *d, "from_pretrained(torch_dtype=...)");
}

/// <Class>.from_pretrained(repo, subfolder=...): the row "<repo>/<subfolder>"
/// of zoo/hf_diffusers_configs.py, when it holds a model of that class.
Value from_pretrained(Interp& in, std::string_view cls, Args& a) {
  Value name = a.get(in, 0, "pretrained_model_name_or_path").value_or(Value::unknown());
  auto n = in.as_str(name);
  // The subfolder: absent or None is the repo's root.
  auto sub = a.kwarg(in, "subfolder");
  std::string sub_name;
  bool sub_known = !sub || sub->kind == VKind::None;
  if (auto s = sub ? in.as_str(*sub) : std::nullopt; s && !s->empty()) {
    sub_name = std::string(*s);
    sub_known = true;
  }
  std::string call = "`" + std::string(cls) + ".from_pretrained`";
  if (!n || !sub_known) {
    in.note_unknown("diffusers checkpoint for " + call + ": its " + (n ? "subfolder" : "name") +
                        " is a value the interpreter cannot read",
                    a.span, true);
    return Value::unknown();
  }
  std::string key = std::string(*n);
  if (!sub_name.empty()) key += "/" + sub_name;
  Args by_key{{in.str_value(key)}, {}, a.span};
  auto row_cls = in.as_str(in.call(zoo_value(in, "hf_diffusers_configs", "row_class"), by_key));
  if (!row_cls || *row_cls != cls) {
    in.note_unknown("diffusers checkpoint `" + key + "` for " + call +
                        (row_cls ? " holds a `" + std::string(*row_cls) + "` in the built-in config table"
                                 : std::string(" is not in the built-in config table")),
                    a.span, true);
    return Value::unknown();
  }
  Args build_key{{in.str_value(key)}, {}, a.span};
  Value m = in.call(zoo_value(in, "hf_diffusers_configs", "build"), build_key);
  apply_dtype(in, m, a);
  record(in, std::string(*n), cls, "from_pretrained", m);
  return m;
}

}  // namespace

Value construct_diffusers(Interp& in, std::string_view q, Args& a, bool& handled, Value self) {
  handled = true;
  size_t dot = q.rfind('.');
  std::string_view last = q.substr(dot + 1);
  // A model from its arguments (a subclass's super().__init__ is not).
  if (const ModelRow* r = model_row(last); r && !self.known()) {
    Value cls = zoo_value(in, r->file, r->cls);
    if (in.is_obj(cls, OKind::Class)) {
      Value m = in.construct(cls.a, a);
      record(in, std::string(last), "diffusers", "constructed", m);
      return m;
    }
  }
  // training_utils' helpers the example scripts call.
  for (std::string_view helper : {"EMAModel", "cast_training_params", "compute_snr"}) {
    if (last != helper || self.known()) continue;
    Value v = zoo_value(in, "hf_diffusers", helper);
    if (in.is_obj(v, OKind::Class)) return in.construct(v.a, a);
    return in.call(v, a);
  }
  std::string_view cls = last;
  bool loader = last == "from_pretrained" || last == "from_config";
  if (loader) {
    cls = q.substr(0, dot);
    cls = cls.substr(cls.rfind('.') + 1);
  }
  if (cls.ends_with("Scheduler") && !self.known()) {
    Value sched = zoo_value(in, "hf_diffusers", "NoiseScheduler");
    // from_pretrained(name, subfolder="scheduler") and from_config(config):
    // the config's count of training timesteps and prediction type are the
    // constructor's defaults (1000, "epsilon"); the config itself is not
    // read, so it must not reach the constructor as its first argument.
    Args none{{}, {}, a.span};
    if (in.is_obj(sched, OKind::Class)) return in.construct(sched.a, loader ? none : a);
  }
  if (last == "from_pretrained" && model_row(cls)) return from_pretrained(in, cls, a);
  if (loader && (cls.ends_with("Model") || cls.starts_with("Autoencoder"))) {
    in.note_unknown("diffusers model `" + std::string(cls) + "." + std::string(last) +
                        "(...)` is not in the built-in zoo (UNet2DModel, UNet2DConditionModel and AutoencoderKL "
                        "from their arguments or by hub name are)",
                    a.span, true);
    return Value::unknown();
  }
  handled = false;
  return Value::unknown();
}

}  // namespace tpf::memory
