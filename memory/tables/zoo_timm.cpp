// timm.create_model("name"): the registered names of memory/tables/timm_models.def
// (generated from timm's sources by tools/timm_table.py) built by the zoo
// builders of memory/tables/zoo/timm_models.py, with the pretrained tag's head
// size and image size and the caller's num_classes, in_chans, drop_rate
// and img_size. An unknown name stays an unknown, with the close names.
// requires: interp.h, zoo.cpp's zoo units. produces: zoo module instances.
#include <algorithm>
#include <string>

#include "memory/interp/interp.h"
#include "targets/targets.h"

namespace tpf::memory {

Value zoo_value(Interp& in, std::string_view file, std::string_view name);

namespace {

struct TimmRow {
  std::string_view name, family, tag;
  int64_t num_classes, img_size;
  double published;       ///< millions, as timm's results tables print it
  std::string_view args;  ///< the builder's keyword arguments, Python syntax
};
struct TimmTag {
  std::string_view name, tag;
  int64_t num_classes, img_size;
};

constexpr TimmRow kTimm[] = {
#define TPF_TIMM(name, family, tag, nc, size, published, args) {name, family, tag, nc, size, published, args},
#define TPF_TIMM_TAG(name, tag, nc, size)
#include "memory/tables/timm_models.def"
#undef TPF_TIMM_TAG
#undef TPF_TIMM
};

constexpr TimmTag kTimmTags[] = {
#define TPF_TIMM(name, family, tag, nc, size, published, args)
#define TPF_TIMM_TAG(name, tag, nc, size) {name, tag, nc, size},
#include "memory/tables/timm_models.def"
#undef TPF_TIMM_TAG
#undef TPF_TIMM
};

/// Up to 5 table names near `name`: a small edit distance, else the names
/// it starts (`vit_base` -> vit_base_patch16_224, ...).
std::string close_names(std::string_view name) {
  std::vector<std::pair<size_t, std::string_view>> near;
  for (const TimmRow& r : kTimm) {
    size_t d = targets::edit_distance(name, r.name);
    if (d <= 3) near.push_back({d, r.name});
    else if (name.size() >= 3 && r.name.starts_with(name)) near.push_back({4, r.name});
  }
  std::stable_sort(near.begin(), near.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
  std::string out;
  for (size_t k = 0; k < near.size() && k < 5; ++k) out += (k ? ", `" : "`") + std::string(near[k].second) + "`";
  return out;
}

/// The table row of a model name as create_model takes it (`name` loses
/// its hub prefix), and the pretrained tag: "hf-hub:timm/resnet50.a1_in1k",
/// "timm/resnet50.a1_in1k" and "resnet50.a1_in1k" name the same
/// architecture and tag.
const TimmRow* timm_row(std::string_view& name, std::string_view* arch_out,
                        std::string_view* tag_out) {
  for (std::string_view p : {"hf-hub:", "hf_hub:", "timm/"})
    if (name.starts_with(p)) name.remove_prefix(p.size());
  std::string_view arch = name.substr(0, name.find('.'));
  if (arch_out) *arch_out = arch;
  if (tag_out)
    *tag_out = arch.size() < name.size() ? name.substr(arch.size() + 1) : std::string_view{};
  for (const TimmRow& r : kTimm)
    if (r.name == arch) return &r;
  return nullptr;
}

}  // namespace

/// timm.is_model(name) / timm.models.is_model: true for a name of the
/// table (timm registers every one of them); another name may be one of
/// timm's that the table lacks, so it is unknown, never false (timm's
/// benchmark.py treats a name that is no model as a wildcard filter).
Value timm_is_model(Interp& in, Args& a) {
  auto given = in.as_str(a.get(in, 0, "model_name").value_or(Value::unknown()));
  if (!given) return Value::unknown();
  std::string_view name = *given;
  return timm_row(name, nullptr, nullptr) ? Value::boolean(true) : Value::unknown();
}

/// timm.create_model(name, pretrained=..., num_classes=..., in_chans=...,
/// drop_rate=..., img_size=...), also as timm.models.create_model.
Value create_timm(Interp& in, std::string_view q, Args& a) {
  Value v = a.get(in, 0, "model_name").value_or(Value::unknown());
  auto given = in.as_str(v);
  if (!given) {
    in.note_unknown("`" + std::string(q) + "` with a model name the interpreter cannot follow", a.span, true);
    return Value::unknown();
  }
  std::string_view name = *given, arch, tag;
  const TimmRow* row = timm_row(name, &arch, &tag);
  if (!row) {
    std::string near = close_names(arch);
    in.note_unknown("timm model `" + std::string(*given) + "` is not in the built-in table (timm 1.0, " +
                        std::to_string(std::size(kTimm)) + " names of the resnet, efficientnet, mobilenet, " +
                        "convnext, vit/deit, swin and regnet families)" +
                        (near.empty() ? std::string() : "; close names: " + near),
                    a.span, true);
    return Value::unknown();
  }
  // A feature extractor returns the stages' maps, not logits: another model.
  if (auto f = a.kwarg(in, "features_only"); f && !(f->kind == VKind::Bool && !f->a) && f->kind != VKind::None) {
    in.note_unknown("`timm.create_model(features_only=...)` is not modeled", a.span, true);
    return Value::unknown();
  }
  int64_t classes = row->num_classes, size = row->img_size;
  if (!tag.empty())
    for (const TimmTag& t : kTimmTags)
      if (t.name == arch && t.tag == tag) classes = t.num_classes, size = t.img_size;
  // The table row's arguments, evaluated once as a small unit of their own.
  std::string unit = "timm_args/" + std::string(arch);
  in.zoo_unit(unit, "ARGS = dict(" + std::string(row->args) + ")\n");
  Value args = zoo_value(in, unit, "ARGS");
  Value builder = zoo_value(in, "timm_models", "create_model");
  if (!args.known() || !builder.known()) ir::internal_error("memory zoo: timm table row does not evaluate");
  Args ba{{in.str_value(row->family), args}, {}, a.span};
  // create_model drops keyword arguments that are None (train.py passes
  // num_classes=args.num_classes, None unless given).
  auto kw = [&](std::string_view k, Value dflt) {
    Value v = a.kwarg(in, k).value_or(dflt);
    ba.kw.push_back({in.intern(k), v.kind == VKind::None ? dflt : v});
  };
  // A head size the interpreter cannot read (accelerate's cv_example:
  // len(label_to_id), from the files of --data_dir): a one-class head, the
  // lower bound (each class adds in_features + 1 parameters), and said so;
  // the head still trains, as the script's does.
  if (auto n = a.kwarg(in, "num_classes"); n && n->kind != VKind::None && !in.as_int(*n)) {
    in.note_unknown("`num_classes` of `" + std::string(q) + "(\"" + std::string(name) +
                        "\")` comes from values the interpreter cannot follow; the classifier is counted with one class, a lower "
                        "bound",
                    a.span, false);
    a.kw.erase(std::remove_if(a.kw.begin(), a.kw.end(),
                              [&](const auto& k) { return in.str(k.first) == "num_classes"; }),
               a.kw.end());
    classes = 1;
  }
  kw("num_classes", in.int_value(classes));
  kw("in_chans", in.int_value(3));
  kw("drop_rate", Value::real(0.0));
  kw("img_size", in.int_value(size));
  Value m = in.call(builder, ba);
  in.cfg.models.push_back({std::string(name), "timm", {in.user_line(), std::string(q)}, 0,
                           m.kind == VKind::Obj ? m.a : UINT32_MAX});
  return m;
}

}  // namespace tpf::memory
