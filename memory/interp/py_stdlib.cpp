// The standard library a training script leans on for its configuration:
// argparse (memory/interp/py_argparse.cpp), dataclasses, types.SimpleNamespace, math, os.environ,
// functools.partial, copy; and the methods of str, list, dict and numbers.
// requires: interp.h. produces: handlers for those names.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <unordered_map>

#include "memory/interp/interp.h"

namespace tpf::memory {
namespace {


// ------------------------------------------------------------ dataclasses

Value dc_dataclass(Interp& in, Args& a) {
  if (a.pos.empty()) {
    // @dataclass(frozen=True): returns the decorator itself.
    return Value::ext(in.intern("dataclasses.dataclass"));
  }
  if (in.is_obj(a.pos[0], OKind::Class)) in.o(a.pos[0]).flags |= kDataclass;
  return a.pos[0];
}

Value dc_field(Interp& in, Args& a) {
  if (auto d = a.kwarg(in, "default")) return *d;
  if (auto f = a.kwarg(in, "default_factory")) {
    Args ca;
    return in.call(*f, ca);
  }
  return Value::unknown();
}

Value dc_asdict(Interp& in, Args& a) {
  if (a.pos.empty()) return Value::unknown();
  Obj* ob = in.instance(a.pos[0]);
  if (!ob) return Value::unknown();
  Value d = in.make_dict();
  std::vector<std::pair<StrId, Value>> items = ob->attrs.items;
  for (auto& [k, v] : items) in.setitem(d, Value::str(k), v);
  return d;
}

Value ns_new(Interp& in, Args& a) {
  Value ns = new_instance(in, "types.SimpleNamespace");
  for (auto& [k, v] : a.kw) in.o(ns).attrs.set(k, v);
  return ns;
}

Value vars_of(Interp& in, Args& a) { return dc_asdict(in, a); }

// ------------------------------------------------------------------- math

Value math1(Interp& in, Args& a, double (*fn)(double)) {
  if (a.pos.empty()) return Value::unknown();
  auto x = in.as_number(a.pos[0]);
  return x ? Value::real(fn(*x)) : Value::unknown();
}
Value m_sqrt(Interp& in, Args& a) { return math1(in, a, std::sqrt); }
// math.log(x, base) is log(x) / log(base), as CPython computes it.
Value m_log(Interp& in, Args& a) {
  if (a.pos.size() < 2) return math1(in, a, std::log);
  auto x = in.as_number(a.pos[0]), b = in.as_number(a.pos[1]);
  if (!x || !b || *x <= 0 || *b <= 0 || *b == 1) return Value::unknown();
  return Value::real(std::log(*x) / std::log(*b));
}
Value m_exp(Interp& in, Args& a) { return math1(in, a, std::exp); }
Value m_cos(Interp& in, Args& a) { return math1(in, a, std::cos); }
Value m_ceil(Interp& in, Args& a) {
  auto x = a.pos.empty() ? std::nullopt : in.as_number(a.pos[0]);
  if (a.pos.size() == 1 && a.pos[0].kind == VKind::Int) return a.pos[0];
  return x ? in.int_value(static_cast<int64_t>(std::ceil(*x))) : Value::unknown();
}
Value m_floor(Interp& in, Args& a) {
  auto x = a.pos.empty() ? std::nullopt : in.as_number(a.pos[0]);
  if (a.pos.size() == 1 && a.pos[0].kind == VKind::Int) return a.pos[0];
  return x ? in.int_value(static_cast<int64_t>(std::floor(*x))) : Value::unknown();
}
Value m_prod(Interp& in, Args& a) {
  if (a.pos.empty()) return Value::unknown();
  auto items = in.iterate(a.pos[0]);
  if (!items) return Value::unknown();
  Value acc = in.int_value(1);
  for (Value v : *items) acc = in.binop(ast::Op::Mult, acc, v, false);
  return acc;
}
Value m_pow(Interp& in, Args& a) {
  if (a.pos.size() < 2) return Value::unknown();
  auto x = in.as_number(a.pos[0]), y = in.as_number(a.pos[1]);
  return x && y ? Value::real(std::pow(*x, *y)) : Value::unknown();
}

// ------------------------------------------------------------- os / misc

/// The run is a launcher's (torchrun: rank 0 of N) when --world-size or the
/// target says it has more than one GPU; otherwise it is `python train.py`
/// on one GPU, with no launcher variable set.
bool launched(const Interp& in) {
  return (in.opt.world_size && *in.opt.world_size > 1) || (in.opt.target && in.opt.target->count > 1);
}

Value os_getenv(Interp& in, Args& a) {
  // The environment of the run is unknown; scripts pass their default.
  std::optional<Value> d = a.get(in, 1, "default");
  if (auto key = a.pos.empty() ? std::nullopt : in.as_str(a.pos[0])) {
    if (*key == "WORLD_SIZE" || *key == "LOCAL_WORLD_SIZE") {
      if (in.opt.world_size) return in.str_value(std::to_string(*in.opt.world_size));
      // torchrun starts one process per GPU of the target; with no default
      // to fall back on (os.environ["WORLD_SIZE"]) the script is launched.
      if (in.opt.target && (!d || launched(in))) return in.str_value(std::to_string(in.opt.target->count));
    }
    if (*key == "RANK" || *key == "LOCAL_RANK") {
      // Rank 0 of a launch, or of a script that reads the rank with no
      // default. Otherwise the variable is unset, and
      // `if int(os.environ.get("RANK", -1)) != -1:` (nanoGPT, llm.c) takes
      // the single-GPU branch, without DDP.
      if (launched(in) || !d) return in.str_value("0");
    }
  }
  return d ? *d : Value::none();
}

Value f_partial(Interp& in, Args& a) {
  if (a.pos.empty()) return Value::unknown();
  ObjId p = in.alloc(OKind::Partial);
  in.o(p).items = a.pos;
  in.o(p).attrs.assign(a.kw);
  return Value::obj(p);
}

Value identity(Interp&, Args& a) { return a.pos.empty() ? Value::unknown() : a.pos[0]; }

// ---------------------------------------------------------------- os.path
// On the paths a script names (config files, data folders): string work only,
// never the file system. abspath and the like keep the path as written; the
// file readers resolve it against the script's folder and the project.

Value path_same(Interp& in, Args& a) { return !a.pos.empty() && in.as_str(a.pos[0]) ? a.pos[0] : Value::unknown(); }

Value path_join(Interp& in, Args& a) {
  std::string out;
  for (Value v : a.pos) {
    auto s = fspath(in, v);  // a str or a pathlib.Path
    if (!s) return Value::unknown();
    if (s->starts_with('/')) out.clear();
    if (!out.empty() && !out.ends_with('/')) out += '/';
    out += *s;
  }
  return in.str_value(out);
}

Value path_part(Interp& in, Args& a, bool base) {
  auto s = a.pos.empty() ? std::nullopt : in.as_str(a.pos[0]);
  if (!s) return Value::unknown();
  size_t slash = s->rfind('/');
  if (slash == std::string_view::npos) return in.str_value(base ? *s : std::string_view());
  return in.str_value(base ? s->substr(slash + 1) : s->substr(0, slash));
}
Value path_basename(Interp& in, Args& a) { return path_part(in, a, true); }
Value path_dirname(Interp& in, Args& a) { return path_part(in, a, false); }

/// copy.deepcopy: new objects all the way down; tensors get new storages
/// (a deep-copied module has its own parameters, as TransformerEncoder's
/// _get_clones relies on). Classes, functions and names are shared.
Value deep_copy(Interp& in, Value v, std::unordered_map<ObjId, ObjId>& memo,
                std::unordered_map<uint32_t, uint32_t>& storages) {
  if (v.kind != VKind::Obj) return v;
  if (auto it = memo.find(v.a); it != memo.end()) return Value::obj(it->second);
  OKind k = in.o(v).kind;
  if (k == OKind::Tensor) {
    TensorObj t = *in.o(v).t;
    auto st = storages.find(t.storage);
    if (st == storages.end()) {
      Storage s = in.storages[t.storage];
      uint32_t ns = static_cast<uint32_t>(in.storages.size());
      in.storages.push_back(s);
      st = storages.emplace(t.storage, ns).first;
    }
    t.storage = st->second;
    t.graph = -1;
    t.grad = kNone32;
    ObjId id = in.alloc(OKind::Tensor);
    in.o(id).t = std::make_unique<TensorObj>(t);
    memo[v.a] = id;
    return Value::obj(id);
  }
  if (k != OKind::List && k != OKind::Tuple && k != OKind::Set && k != OKind::Dict && k != OKind::Instance)
    return v;
  ObjId id = in.alloc(k);
  memo[v.a] = id;
  {
    const Obj& src = in.o(v);
    Obj& dst = in.o(id);
    dst.type = src.type;
    dst.module = src.module;
    dst.layer = src.layer;
    dst.index = src.index;
    dst.flags = src.flags & ~kRoot;
    dst.cls = src.cls;
  }
  std::vector<Value> items = in.o(v).items;
  for (Value& x : items) x = deep_copy(in, x, memo, storages);
  std::vector<std::pair<StrId, Value>> attrs = in.o(v).attrs.items;
  for (auto& [n, x] : attrs) x = deep_copy(in, x, memo, storages);
  in.o(id).items = std::move(items);
  in.o(id).attrs.assign(std::move(attrs));
  return Value::obj(id);
}

Value f_deepcopy(Interp& in, Args& a) {
  if (a.pos.empty()) return Value::unknown();
  std::unordered_map<ObjId, ObjId> memo;
  std::unordered_map<uint32_t, uint32_t> storages;
  return deep_copy(in, a.pos[0], memo, storages);
}
Value unknown_fn(Interp&, Args&) { return Value::unknown(); }
Value none_fn(Interp&, Args&) { return Value::none(); }

}  // namespace

std::optional<bool> environ_contains(const Interp& in, std::string_view key) {
  for (std::string_view k : {"RANK", "LOCAL_RANK", "WORLD_SIZE", "LOCAL_WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT"})
    if (key == k) return launched(in);
  return std::nullopt;
}

// ------------------------------------------------ methods of builtin types

Value call_builtin_method(Interp& in, Value self, std::string_view n, Args& a, bool& handled) {
  handled = true;
  auto arg = [&](size_t k) { return k < a.pos.size() ? a.pos[k] : Value::unknown(); };
  if (self.kind == VKind::Str) {
    std::string s(in.str(self.a));
    if (n == "lower" || n == "upper") {
      for (char& c : s) c = static_cast<char>(n == "lower" ? std::tolower(c) : std::toupper(c));
      return in.str_value(s);
    }
    if (n == "startswith" || n == "endswith") {
      auto p = in.as_str(arg(1));
      if (!p) return Value::unknown();
      return Value::boolean(n == "startswith" ? std::string_view(s).starts_with(*p)
                                              : std::string_view(s).ends_with(*p));
    }
    if (n == "strip") return self;
    if (n == "find") {
      auto p = in.as_str(arg(1));
      if (!p) return Value::unknown();
      size_t at = s.find(*p);
      return in.int_value(at == std::string::npos ? -1 : static_cast<int64_t>(at));
    }
    if (n == "replace") {
      auto x = in.as_str(arg(1)), y = in.as_str(arg(2));
      if (!x || !y || x->empty()) return Value::unknown();
      std::string out;
      for (size_t k = 0; k < s.size();) {
        if (s.compare(k, x->size(), *x) == 0) {
          out += *y;
          k += x->size();
        } else {
          out += s[k++];
        }
      }
      return in.str_value(out);
    }
    if ((n == "split" || n == "rsplit") && a.pos.size() <= 3) {
      // str.split / str.rsplit with a separator and maxsplit, as Python's;
      // no separator splits on runs of whitespace.
      std::optional<Value> sv = a.get(in, 1, "sep");
      std::optional<Value> mv = a.get(in, 2, "maxsplit");
      int64_t max = mv && in.as_int(*mv) ? *in.as_int(*mv) : -1;
      if (mv && !in.as_int(*mv)) return Value::unknown();
      std::vector<std::string> parts;
      if (!sv || sv->kind == VKind::None) {
        std::vector<std::pair<size_t, size_t>> words;  // [begin, end)
        for (size_t k = 0; k < s.size();) {
          while (k < s.size() && std::isspace(static_cast<unsigned char>(s[k]))) ++k;
          if (k == s.size()) break;
          size_t e = k;
          while (e < s.size() && !std::isspace(static_cast<unsigned char>(s[e]))) ++e;
          words.emplace_back(k, e);
          k = e;
        }
        if (max < 0 || static_cast<size_t>(max) + 1 >= words.size()) {
          for (auto [b, e] : words) parts.push_back(s.substr(b, e - b));
        } else if (n == "split") {
          for (size_t k = 0; k < static_cast<size_t>(max); ++k) parts.push_back(s.substr(words[k].first, words[k].second - words[k].first));
          parts.push_back(s.substr(words[static_cast<size_t>(max)].first));  // the rest, trailing space kept
        } else {
          const size_t keep = words.size() - static_cast<size_t>(max);
          parts.push_back(s.substr(0, words[keep - 1].second));  // the rest, leading space kept
          for (size_t k = keep; k < words.size(); ++k) parts.push_back(s.substr(words[k].first, words[k].second - words[k].first));
        }
      } else {
        auto sep = in.as_str(*sv);
        if (!sep || sep->empty()) return Value::unknown();
        const std::string sp(*sep);
        if (n == "split") {
          size_t start = 0;
          for (int64_t cut = 0;; ++cut) {
            size_t at = max >= 0 && cut >= max ? std::string::npos : s.find(sp, start);
            parts.push_back(s.substr(start, at - start));
            if (at == std::string::npos) break;
            start = at + sp.size();
          }
        } else {
          size_t end = s.size();
          for (int64_t cut = 0;; ++cut) {
            size_t at = (max >= 0 && cut >= max) || end < sp.size() ? std::string::npos : s.rfind(sp, end - sp.size());
            if (at == std::string::npos) {
              parts.insert(parts.begin(), s.substr(0, end));
              break;
            }
            parts.insert(parts.begin(), s.substr(at + sp.size(), end - at - sp.size()));
            end = at;
          }
        }
      }
      std::vector<Value> out;
      for (std::string& p : parts) out.push_back(in.str_value(p));
      return in.make_list(std::move(out));
    }
    if ((n == "partition" || n == "rpartition") && a.pos.size() == 2) {
      auto sep = in.as_str(arg(1));
      if (!sep || sep->empty()) return Value::unknown();
      size_t at = n == "partition" ? s.find(*sep) : s.rfind(*sep);
      std::vector<Value> out;
      if (at == std::string::npos) {
        out = n == "partition" ? std::vector<Value>{in.str_value(s), in.str_value(""), in.str_value("")}
                               : std::vector<Value>{in.str_value(""), in.str_value(""), in.str_value(s)};
      } else {
        out = {in.str_value(s.substr(0, at)), in.str_value(std::string(*sep)), in.str_value(s.substr(at + sep->size()))};
      }
      return in.make_list(std::move(out), OKind::Tuple);
    }
    if (n == "format") {
      // `{}`, `{0}` and `{name}` fields of strings and numbers, `{{`/`}}`
      // (litgpt's config names: "Llama-2-7b{}-hf".format("-chat")); a
      // format spec or a value with no known text: unknown.
      std::string out;
      size_t next = 1;
      for (size_t k = 0; k < s.size(); ++k) {
        char c = s[k];
        if ((c == '{' || c == '}') && k + 1 < s.size() && s[k + 1] == c) {
          out += c;
          ++k;
          continue;
        }
        if (c == '}') return Value::unknown();
        if (c != '{') {
          out += c;
          continue;
        }
        size_t close = s.find('}', k);
        if (close == std::string::npos) return Value::unknown();
        std::string field = s.substr(k + 1, close - k - 1);
        k = close;
        Value v = Value::unknown();
        if (field.empty()) {
          v = arg(next++);
        } else if (std::all_of(field.begin(), field.end(), [](char d) { return d >= '0' && d <= '9'; })) {
          v = arg(1 + static_cast<size_t>(std::stoul(field)));
        } else if (auto kv = a.kwarg(in, field)) {
          v = *kv;
        }
        if (v.kind == VKind::Str) out += in.str(v.a);
        else if (v.kind == VKind::Int || v.kind == VKind::Float || v.kind == VKind::Bool) out += in.repr(v);
        else return Value::unknown();
      }
      return in.str_value(out);
    }
    if (n == "join") {
      auto items = in.iterate(arg(1));
      if (!items) return Value::unknown();
      std::string out;
      for (size_t k = 0; k < items->size(); ++k) {
        auto p = in.as_str((*items)[k]);
        if (!p) return Value::unknown();
        if (k) out += s;
        out += *p;
      }
      return in.str_value(out);
    }
    return Value::unknown();
  }
  if (in.is_obj(self, OKind::Property) && (n == "setter" || n == "getter") && in.is_obj(arg(1), OKind::Function)) {
    // `@x.setter`: a new property with the getter and this setter.
    std::vector<Value> fns = in.o(self).items;
    fns.resize(2, Value::none());
    fns[n == "setter" ? 1 : 0] = arg(1);
    ObjId p = in.alloc(OKind::Property);
    in.o(p).items = std::move(fns);
    return Value::obj(p);
  }
  if (self.kind == VKind::Int || self.kind == VKind::Float) {
    if (n == "is_integer") return Value::boolean(self.kind == VKind::Int || std::floor(self.f) == self.f);
    return Value::unknown();
  }
  if (in.is_obj(self, OKind::List)) {
    std::vector<Value>& items = in.o(self).items;
    if (n == "append") { items.push_back(arg(1)); in.grown(self); return Value::none(); }
    if (n == "extend") {
      if (auto more = in.iterate(arg(1))) {
        std::vector<Value>& it2 = in.o(self).items;
        it2.insert(it2.end(), more->begin(), more->end());
      }
      in.grown(self);
      return Value::none();
    }
    if (n == "insert") {
      auto k = in.as_int(arg(1));
      if (k) {
        int64_t sz = static_cast<int64_t>(items.size());
        int64_t at = std::clamp<int64_t>(*k < 0 ? *k + sz : *k, 0, sz);
        items.insert(items.begin() + at, arg(2));
      }
      in.grown(self);
      return Value::none();
    }
    if (n == "pop") {
      if (items.empty()) return Value::unknown();
      int64_t sz = static_cast<int64_t>(items.size());
      int64_t k = a.pos.size() > 1 ? in.as_int(arg(1)).value_or(-1) : -1;
      if (k < 0) k += sz;
      if (k < 0 || k >= sz) return Value::unknown();
      Value v = items[static_cast<size_t>(k)];
      items.erase(items.begin() + k);
      return v;
    }
    if (n == "reverse") { std::reverse(items.begin(), items.end()); return Value::none(); }
    if (n == "copy") return in.make_list(items);
    if (n == "index") {
      for (size_t k = 0; k < items.size(); ++k)
        if (in.same(items[k], arg(1))) return in.int_value(static_cast<int64_t>(k));
      return Value::unknown();
    }
    if (n == "clear") { items.clear(); return Value::none(); }
    if (n == "remove") {
      // The first item equal to the argument goes; when no known item
      // before it compares equal, nothing is removed and the call is unknown.
      for (size_t k = 0; k < items.size(); ++k) {
        if (!items[k].known() || !arg(1).known()) break;
        if (in.same(items[k], arg(1))) {
          items.erase(items.begin() + static_cast<std::ptrdiff_t>(k));
          return Value::none();
        }
      }
      return Value::unknown();
    }
    if (n == "__iter__") return in.make_list(items, OKind::Iter);
    return Value::unknown();
  }
  if (in.is_obj(self, OKind::Dict)) {
    // A tokenizer's BatchEncoding (memory/interp/data.cpp makes it a dict of
    // tensors) moved to a device: the same tensors, as torch's .to() keeps
    // the sizes.
    if (n == "to") return self;
    if (n == "get") {
      std::vector<Value> items = in.o(self).items;
      for (size_t k = 0; k + 1 < items.size(); k += 2)
        if (in.same(items[k], arg(1))) return items[k + 1];
      return a.pos.size() > 2 ? arg(2) : Value::none();
    }
    if (n == "items" || n == "keys" || n == "values") {
      std::vector<Value> items = in.o(self).items, out;
      for (size_t k = 0; k + 1 < items.size(); k += 2) {
        if (n == "items") out.push_back(in.make_list({items[k], items[k + 1]}, OKind::Tuple));
        else out.push_back(items[k + (n == "values" ? 1 : 0)]);
      }
      return in.make_list(std::move(out));
    }
    if (n == "update") {
      if (in.is_obj(arg(1), OKind::Dict)) {
        std::vector<Value> items = in.o(arg(1)).items;
        for (size_t k = 0; k + 1 < items.size(); k += 2) in.setitem(self, items[k], items[k + 1]);
      }
      for (auto& [k, v] : a.kw) in.setitem(self, Value::str(k), v);
      return Value::none();
    }
    if (n == "setdefault") {
      std::vector<Value> items = in.o(self).items;
      for (size_t k = 0; k + 1 < items.size(); k += 2)
        if (in.same(items[k], arg(1))) return items[k + 1];
      in.setitem(self, arg(1), arg(2));
      return arg(2);
    }
    if (n == "pop") {
      std::vector<Value>& items = in.o(self).items;
      for (size_t k = 0; k + 1 < items.size(); k += 2) {
        if (in.same(items[k], arg(1))) {
          Value v = items[k + 1];
          items.erase(items.begin() + static_cast<long>(k), items.begin() + static_cast<long>(k) + 2);
          return v;
        }
      }
      return a.pos.size() > 2 ? arg(2) : Value::unknown();
    }
    if (n == "copy") {
      Value d = in.make_dict();
      in.o(d).items = in.o(self).items;
      return d;
    }
    return Value::unknown();
  }
  if (in.is_obj(self, OKind::Tuple)) {
    if (n == "index" || n == "count") return Value::unknown();
    return Value::unknown();
  }
  handled = false;
  return Value::unknown();
}

Value instance_method_stdlib(Interp& in, Value self, std::string_view n, Args& a, bool& handled) {
  Value r = exec_method(in, self, n, a, handled);
  if (handled) return r;
  r = cli_method(in, self, n, a, handled);
  if (handled) return r;
  r = config_method(in, self, n, a, handled);
  if (handled) return r;
  return argparse_method(in, self, n, a, handled);
}

void register_stdlib(Builtins& b) {
  auto& f = b.functions;
  f["dataclasses.dataclass"] = dc_dataclass;
  f["dataclasses.field"] = dc_field;
  f["dataclasses.asdict"] = dc_asdict;
  f["builtins.vars"] = vars_of;
  f["types.SimpleNamespace"] = ns_new;
  f["argparse.Namespace"] = ns_new;
  register_argparse(b);
  register_exec(b);
  register_cli(b);
  register_click(b);
  register_simple_parsing(b);
  register_config_files(b);
  f["math.sqrt"] = m_sqrt;
  f["math.log"] = m_log;
  f["math.exp"] = m_exp;
  f["math.cos"] = m_cos;
  f["math.ceil"] = m_ceil;
  f["math.floor"] = m_floor;
  f["math.prod"] = m_prod;
  f["math.pow"] = m_pow;
  f["numpy.prod"] = m_prod;
  f["os.getenv"] = os_getenv;
  for (const char* n : {"os.path.abspath", "os.path.realpath", "os.path.normpath", "os.path.expanduser"})
    f[n] = path_same;
  f["os.path.join"] = path_join;
  f["os.path.basename"] = path_basename;
  f["os.path.dirname"] = path_dirname;
  f["os.environ.get"] = os_getenv;
  f["functools.partial"] = f_partial;
  f["copy.deepcopy"] = f_deepcopy;
  f["copy.copy"] = identity;
  f["typing.cast"] = unknown_fn;
  f["random.seed"] = none_fn;
  f["numpy.random.seed"] = none_fn;
}

}  // namespace tpf::memory
