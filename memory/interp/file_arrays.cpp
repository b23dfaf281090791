// Arrays read from files the interpreter never opens: `np.memmap(path,
// dtype=..., mode="r")`, `np.fromfile(path, dtype=...)` and a torch.load'ed
// token file. Such an array is 1-D, of the dtype the call names and of a
// length nobody knows (unless `shape=` / `count=` gives it); a slice of it
// is an array of the slice's length when that length is decided: both
// bounds known ints, or both one unknown index plus known offsets,
// `data[i : i + block_size]` with `i` an element of `torch.randint(...)`.
// Anything else is unknown, and the estimate names why.
// requires: interp.h, tensor_util.h. produces: file arrays, the tensors
// their slices give, the index relations of 0-dim integer tensors.
#include "memory/interp/interp.h"
#include "memory/interp/tensor_util.h"

namespace tpf::memory {
namespace {

constexpr std::string_view kFileArray = "data.file_array";

bool is_file_array(Interp& in, Value v) { return type_of(in, v) == kFileArray; }

Value attr(Interp& in, Value arr, std::string_view k) {
  const Value* v = in.o(arr).attrs.find(in.intern(k));
  return v ? *v : Value::unknown();
}

/// A new file array: `what` is the call that made it ("np.memmap"), for
/// the notes; `dt` its element type (nullopt: the call names one the
/// interpreter cannot read); `len` its length when the call gives it.
/// Only slices are read: an element or a key (a torch.load'ed checkpoint's
/// `ckpt["model"]`) stays unknown without a note.
Value make_file_array(Interp& in, std::string what, std::optional<Dtype> dt, Value len) {
  Value arr = new_instance(in, kFileArray);
  Obj& ob = in.o(arr);
  ob.line = in.user_line();
  ob.attrs.set(in.intern("__what__"), in.str_value(what));
  ob.attrs.set(in.intern("__len__"), len.kind == VKind::Int ? len : Value::unknown());
  ob.attrs.set(in.intern("dtype"), dt ? Value::dtype(*dt) : Value::unknown());
  ob.attrs.set(in.intern("ndim"), in.int_value(1));
  ob.attrs.set(in.intern("shape"),
               in.make_list({len.kind == VKind::Int ? len : Value::unknown()}, OKind::Tuple));
  return arr;
}

/// One bound of a slice: a known int (anchor kNone32), or an unknown
/// index plus a known offset (0-dim integer tensors), or unreadable.
struct Bound {
  bool readable = false;
  uint32_t anchor = kNone32;
  DimId offset;
};

Bound bound_of(Interp& in, Value v) {
  if (v.kind == VKind::Int) return {true, kNone32, v.dim()};
  if (is_index_tensor(in, v)) {
    IndexRelation r = index_relation_of(in, v);
    return {true, r.anchor, r.offset};
  }
  return {};
}

constexpr std::string_view kNotRelated =
    "its bounds are not one index plus known offsets, so its length is not known";

/// `arr[key]` of a file array: a tensor of the slice's length, else
/// unknown (a slice with a note naming the reason).
Value file_array_getitem(Interp& in, Value arr, Value key, Span at) {
  if (!in.is_obj(key, OKind::Slice)) return Value::unknown();  // one element, a field: not an array
  const std::string what = "`" +
                           std::string(in.as_str(attr(in, arr, "__what__")).value_or("a file")) +
                           "` (line " + std::to_string(in.o(arr).line) + ")";
  auto unknown = [&](std::string why) {
    in.note_unknown("a slice of the file array " + what + ": " + why, at, false);
    return Value::unknown();
  };
  Value dtv = attr(in, arr, "dtype");
  std::vector<Value> s = in.o(key).items;
  if (s[2].kind != VKind::None && in.as_int(s[2]) != 1) return unknown("its step is not 1");
  const Value len = attr(in, arr, "__len__");
  Bound lo =
      s[0].kind == VKind::None ? Bound{true, kNone32, in.dims.constant(0)} : bound_of(in, s[0]);
  Bound hi;
  if (s[1].kind == VKind::None) {
    if (len.kind != VKind::Int)
      return unknown("it runs to the end of the file, whose length is unknown");
    hi = {true, kNone32, len.dim()};
  } else {
    hi = bound_of(in, s[1]);
  }
  if (!lo.readable || !hi.readable)
    return unknown(std::string("its ") + (!lo.readable ? "start" : "stop") +
                   " is not a known int nor a tensor index plus a known offset");
  if (lo.anchor != hi.anchor) return unknown(std::string(kNotRelated));
  // Python counts a negative bound from the end, which is unknown here.
  if (lo.anchor == kNone32 && (in.dims.value(lo.offset) < 0 || in.dims.value(hi.offset) < 0) &&
      len.kind != VKind::Int)
    return unknown("a negative bound counts from the end of the file, whose length is unknown");
  DimId n = in.dims.sub(hi.offset, lo.offset);
  // Within the file: an index the script draws from `len(data) - block`
  // keeps its window inside it; a known length clips a known stop.
  if (lo.anchor == kNone32 && len.kind == VKind::Int) {
    DimId stop = in.dims.value(hi.offset) < 0 ? in.dims.add(len.dim(), hi.offset)
                                              : in.dims.min(hi.offset, len.dim());
    DimId start = in.dims.value(lo.offset) < 0 ? in.dims.add(len.dim(), lo.offset) : lo.offset;
    n = in.dims.sub(stop, start);
  }
  if (in.dims.value(n) <= 0) return unknown("it is empty (" + in.dims.str(n) + " elements)");
  if (dtv.kind != VKind::Dtype) return unknown("the array's dtype is not known");
  return in.new_tensor({n}, static_cast<Dtype>(dtv.a));
}

std::optional<Value> arg(Interp& in, const Args& a, size_t i, std::string_view name) {
  auto v = a.get(in, i, name);
  if (v && v->kind == VKind::None) return std::nullopt;
  return v;
}

/// The element type argument of a numpy call: absent, numpy's default;
/// given and readable, that one; given and unreadable, nullopt (noted).
std::optional<Dtype> dtype_of(Interp& in, const Args& a, size_t i, Dtype dflt,
                              std::string_view call) {
  auto v = arg(in, a, i, "dtype");
  if (!v) return dflt;
  if (auto d = numpy_dtype(in, *v)) return d;
  in.note_unknown(
      v->known() ? "the dtype `" + in.repr(*v) + "` of `" + std::string(call) +
                       "`, not one the estimator reads"
                 : "the dtype of `" + std::string(call) + "`, a value the estimator does not know",
      a.span, false);
  return std::nullopt;
}

/// np.memmap(filename, dtype=uint8, mode='r+', offset=0, shape=None): a
/// 1-D array of the file's length unless `shape` gives a 1-D length (a
/// shape of more dims is not modeled: unknown).
Value f_np_memmap(Interp& in, Args& a) {
  std::optional<Dtype> dt = dtype_of(in, a, 1, Dtype::UInt8, "np.memmap");
  Value len = Value::unknown();
  if (auto shape = arg(in, a, 4, "shape")) {
    len = *shape;
    if (auto* items = in.seq(*shape)) {
      if (items->size() != 1) return Value::unknown();
      len = (*items)[0];
    }
  }
  return make_file_array(in, "np.memmap", dt, len);
}

/// np.fromfile(file, dtype=float, count=-1): the whole file unless a
/// count of at least 0 is given.
Value f_np_fromfile(Interp& in, Args& a) {
  std::optional<Dtype> dt = dtype_of(in, a, 1, Dtype::Float64, "np.fromfile");
  Value len = Value::unknown();
  if (auto c = arg(in, a, 2, "count"); c && c->kind == VKind::Int && in.dims.value(c->dim()) >= 0)
    len = *c;
  return make_file_array(in, "np.fromfile", dt, len);
}

/// np.frombuffer(buffer, dtype=float, count=-1, offset=0): the bytes of a
/// file read whole (llm.c's `np.frombuffer(f.read(), dtype=np.uint16)`),
/// which the interpreter never sees: the length is unknown unless a count
/// of at least 0 is given.
Value f_np_frombuffer(Interp& in, Args& a) {
  std::optional<Dtype> dt = dtype_of(in, a, 1, Dtype::Float64, "np.frombuffer");
  Value len = Value::unknown();
  if (auto c = arg(in, a, 2, "count"); c && c->kind == VKind::Int && in.dims.value(c->dim()) >= 0)
    len = *c;
  return make_file_array(in, "np.frombuffer", dt, len);
}

/// torch.load(path): what the file holds is unknown (a checkpoint's dict,
/// most often), except that a slice of it with a decided length,
/// `data[i : i + block_size + 1]`, is a 1-D tensor of that length: the
/// token file a language-model Dataset cuts its samples from (torch.save of
/// a LongTensor of ids, so int64).
Value f_torch_load(Interp& in, Args&) {
  return make_file_array(in, "torch.load", Dtype::Int64, Value::unknown());
}

/// np.random.randint(low, high=None, size=None): an int64 array of `size`;
/// a single draw is a Python int whose value is unknown.
Value f_np_randint(Interp& in, Args& a) {
  auto size = arg(in, a, 2, "size");
  if (!size) return Value::unknown();
  Args sa{{*size}, {}, a.span};
  auto shape = shape_from(in, sa, 0);
  if (!shape) return Value::unknown();
  return in.new_tensor(*shape, Dtype::Int64);
}

/// np.stack / np.concatenate(arrays, axis=0): torch.stack / torch.cat
/// over the arrays modeled as tensors, `axis` read as `dim`.
template <bool kStack>
Value f_np_join(Interp& in, Args& a) {
  Args ta{{}, {}, a.span};
  ta.pos.push_back(a.get(in, 0, "arrays").value_or(Value::unknown()));
  if (auto ax = a.get(in, 1, "axis")) {
    if (ax->kind != VKind::Int) return Value::unknown();  // axis=None flattens
    ta.pos.push_back(*ax);
  }
  Handler h = in.builtin.function(kStack ? "torch.stack" : "torch.cat");
  return h ? h(in, ta) : Value::unknown();
}

/// np.array(a, dtype=None) / np.asarray / np.ascontiguousarray of an array
/// modeled as a tensor (a window of a token file): np.array copies, the
/// others only to change the dtype. Anything else (a list of numbers, a
/// text) is unknown.
template <bool kCopy>
Value f_np_array(Interp& in, Args& a) {
  auto x = a.get(in, 0, "object");
  TensorObj* t = x ? in.tensor(*x) : nullptr;
  if (!t) return Value::unknown();
  std::optional<Dtype> dt = t->dtype;
  if (auto d = arg(in, a, 1, "dtype")) dt = numpy_dtype(in, *d);
  if (!dt) return Value::unknown();
  if (!kCopy && *dt == t->dtype) return *x;
  return tensor_copy(in, *x, *dt);
}

}  // namespace

bool is_index_tensor(Interp& in, Value v) {
  TensorObj* t = in.tensor(v);
  return t && t->shape.empty() && !is_floating(t->dtype) && !is_complex(t->dtype) &&
         t->dtype != Dtype::Bool;
}

std::optional<DimId> index_window_len(Interp& in, DimId size, Value lo, Value hi, Value step,
                                      std::string& why) {
  if (step.kind != VKind::None && in.as_int(step) != 1) {
    why = "its step is not 1";
    return std::nullopt;
  }
  if (!is_index_tensor(in, lo) || !is_index_tensor(in, hi)) {
    why = "one bound is an index tensor, the other is not, so its length is not known";
    return std::nullopt;
  }
  IndexRelation a = index_relation_of(in, lo), b = index_relation_of(in, hi);
  if (a.anchor != b.anchor) {
    why = kNotRelated;
    return std::nullopt;
  }
  DimId n = in.dims.sub(b.offset, a.offset);
  if (in.dims.value(n) <= 0) {
    why = "it is empty (" + in.dims.str(n) + " elements)";
    return std::nullopt;
  }
  // A window longer than the dimension is cut at its end (the index is 0 at best).
  return in.dims.value(n) > in.dims.value(size) ? size : n;
}

IndexRelation index_relation_of(Interp& in, Value t) {
  auto it = in.index_relation.find(t.a);
  if (it != in.index_relation.end()) return it->second;
  IndexRelation r{in.next_index_anchor++, in.dims.constant(0)};
  in.index_relation.emplace(t.a, r);
  return r;
}

void relate_index(Interp& in, Value out, Value t, DimId delta) {
  IndexRelation r = index_relation_of(in, t);
  in.index_relation[out.a] = {r.anchor, in.dims.add(r.offset, delta)};
}

void forget_index(Interp& in, Value t) {
  if (auto it = in.index_relation.find(t.a); it != in.index_relation.end())
    it->second = {in.next_index_anchor++, in.dims.constant(0)};
}

std::optional<Dtype> numpy_dtype(Interp& in, Value v) {
  if (v.kind == VKind::Dtype) return static_cast<Dtype>(v.a);
  std::string_view n;
  if (v.kind == VKind::Ext)
    n = in.str(v.a);
  else if (auto s = in.as_str(v))
    n = *s;
  else
    return std::nullopt;
  for (std::string_view p : {"numpy.", "np.", "builtins."})
    if (n.starts_with(p)) n.remove_prefix(p.size());
  // numpy's spellings of the same types (numpy/core/numerictypes.py):
  // Python's int and float are int64 and float64 on Linux.
  struct Alias {
    std::string_view name;
    Dtype dtype;
  };
  static constexpr Alias kNumpy[] = {
      {"int", Dtype::Int64},      {"int_", Dtype::Int64},     {"intp", Dtype::Int64},
      {"longlong", Dtype::Int64}, {"intc", Dtype::Int32},     {"float", Dtype::Float64},
      {"float_", Dtype::Float64}, {"double", Dtype::Float64}, {"single", Dtype::Float32},
      {"half", Dtype::Float16},   {"bool", Dtype::Bool},      {"bool_", Dtype::Bool},
      {"ubyte", Dtype::UInt8},    {"byte", Dtype::Int8},      {"ushort", Dtype::UInt16},
      {"short", Dtype::Int16},    {"uintc", Dtype::UInt32},   {"uint", Dtype::UInt64},
      {"i8", Dtype::Int64},       {"i4", Dtype::Int32},       {"i2", Dtype::Int16},
      {"u1", Dtype::UInt8},       {"u2", Dtype::UInt16},      {"u4", Dtype::UInt32},
      {"u8", Dtype::UInt64},      {"f2", Dtype::Float16},     {"f4", Dtype::Float32},
      {"f8", Dtype::Float64},
  };
  std::string_view bare = n;
  if (!bare.empty() && (bare[0] == '<' || bare[0] == '=' || bare[0] == '|')) bare.remove_prefix(1);
  for (const Alias& a : kNumpy)
    if (a.name == bare) return a.dtype;
  for (std::string_view name : {"float16", "float32", "float64", "int8", "int16", "int32", "int64",
                                "uint8", "uint16", "uint32", "uint64"})
    if (name == bare) return parse_dtype(name);
  return std::nullopt;
}

Value file_array_method(Interp& in, Value self, std::string_view n, Args& a, bool& handled) {
  handled = is_file_array(in, self);
  if (!handled) return Value::unknown();
  if (n == "__getitem__" && a.pos.size() > 1) return file_array_getitem(in, self, a.pos[1], a.span);
  if (n == "__len__") return attr(in, self, "__len__");
  return Value::unknown();
}

void register_file_arrays(Builtins& b) {
  b.functions["torch.load"] = f_torch_load;
  b.functions["numpy.memmap"] = f_np_memmap;
  b.functions["numpy.fromfile"] = f_np_fromfile;
  b.functions["numpy.frombuffer"] = f_np_frombuffer;
  b.functions["numpy.random.randint"] = f_np_randint;
  b.functions["numpy.array"] = f_np_array<true>;
  b.functions["numpy.asarray"] = f_np_array<false>;
  b.functions["numpy.ascontiguousarray"] = f_np_array<false>;
  b.functions["numpy.stack"] = f_np_join<true>;
  b.functions["numpy.concatenate"] = f_np_join<false>;
}

}  // namespace tpf::memory
