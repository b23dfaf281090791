// Name resolution over the SSA IR: what each value refers to (an imported
// name such as torch.nn.functional.softmax whatever the alias, a function or
// class of this file, an instance of one, the result of calling an external
// name), module constants folded, and call targets. Bindings are resolved,
// not names: `F.softmax` with `import torch.nn.functional as F` and
// `softmax` with `from torch.nn.functional import softmax` both resolve to
// the path torch.nn.functional.softmax.
// requires: ir::build. produces: Resolution.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "ir/ir.h"

namespace tpf::ir {

/// What a value refers to.
struct Referent {
  enum class Kind : uint8_t {
    Unknown,
    External,  // a name outside the file: id is a PathId (torch.nn.Linear, builtins.print)
    Result,    // the result of calling an external name: id is that PathId (nn.Linear(3, 4))
    Function,  // a function of this file: id is a FunctionId
    Class,     // a class of this file: id is a ClassId
    Instance,  // an instance of a class of this file: id is a ClassId
  };
  Kind kind = Kind::Unknown;
  uint32_t id = UINT32_MAX;
  bool operator==(const Referent&) const = default;
  PathId path() const { return PathId(id); }
  FunctionId function() const { return FunctionId(id); }
  ClassId cls() const { return ClassId(id); }
};

/// A compile-time constant value (module constants, literals, int/float arithmetic).
struct ConstValue {
  enum class Kind : uint8_t { Unknown, None, Bool, Int, Float, Str };
  Kind kind = Kind::Unknown;
  int64_t i = 0;         // Bool (0/1), Int
  double d = 0;          // Float (and Int, converted)
  std::string_view s;    // Str: the UTF-8 text
  bool known() const { return kind != Kind::Unknown; }
  bool is_number() const { return kind == Kind::Int || kind == Kind::Float || kind == Kind::Bool; }
};

/// The constants of one function's values. Most values are no constant, so
/// each value holds an index into a pool (0: unknown) instead of a 40-byte
/// ConstValue; resolution fills the table once per round and function.
class ConstTable {
 public:
  /// n values, all unknown.
  void reset(size_t n) {
    idx_.assign(n, 0);
    pool_.assign(1, ConstValue{});
  }
  /// Gives back the pool's unused capacity once the table is filled (a
  /// reserve of a quarter of the values, most of them no constant, was
  /// 6 MB of a 4 MB file's peak: issue 20).
  void shrink() {
    idx_.shrink_to_fit();  // reset() reuses another function's table (Resolver swaps them)
    pool_.shrink_to_fit();
  }
  const ConstValue& operator[](size_t v) const { return pool_[idx_[v]]; }
  void set(size_t v, const ConstValue& c) {
    if (!c.known()) idx_[v] = 0;
    else if (idx_[v] != 0) pool_[idx_[v]] = c;
    else {
      idx_[v] = static_cast<uint32_t>(pool_.size());
      pool_.push_back(c);
    }
  }
  size_t size() const { return idx_.size(); }
  bool empty() const { return idx_.empty(); }
  /// Every value has the same constant in both.
  bool same(const ConstTable& o) const;

 private:
  std::vector<uint32_t> idx_;
  std::vector<ConstValue> pool_;
};

/// `x op y` and `op x` on constants with Python's int/float semantics
/// (ir/fold.cpp); Unknown when either side is not a number or on overflow.
ConstValue fold_binop(ast::Op op, const ConstValue& x, const ConstValue& y);
ConstValue fold_unary(ast::Op op, const ConstValue& x);

/// What a Call instruction calls.
struct CallTarget {
  enum class Kind : uint8_t {
    Unknown,
    Function,      // fn: a function of this file (bound: a method called on an instance/self)
    Constructor,   // cls: a class of this file; fn: its __init__ (or invalid)
    InstanceCall,  // cls: calling an instance; fn: forward (nn.Module subclass) or __call__
    External,      // name: a qualified name (torch.nn.functional.softmax, builtins.print)
    ResultCall,    // name: calling what an external call returned (criterion(out, y), nn.Linear(3, 4)(x))
    Method,        // method: attribute called on `receiver` (not otherwise resolved): loss.backward()
  };
  Kind kind = Kind::Unknown;
  FunctionId fn;
  ClassId cls;
  PathId name;
  Symbol method = kNoSymbol;
  ValueId receiver;  // Method, bound Function
  bool bound = false;
};

/// `self.<attr> = value` in a method of a class.
struct SelfAttr {
  Symbol attr;
  FunctionId fn;
  ValueId value;
  InstId store;
};

class Resolution {
 public:
  const Referent& ref(FunctionId f, ValueId v) const { return refs_[f.v][v.v]; }
  /// The constant a value is (kind Unknown when none, or for kNoValue).
  const ConstValue& constant(FunctionId f, ValueId v) const {
    static const ConstValue kUnknown;
    return v.valid() ? consts_[f.v][v.v] : kUnknown;
  }
  /// The External path a value names, or kNoPath.
  PathId qualname(FunctionId f, ValueId v) const;
  CallTarget call_target(FunctionId f, InstId call) const;
  /// What a function returns on every path, when all returns agree.
  const Referent& returns(FunctionId f) const { return returns_[f.v]; }
  /// The class whose instance a method's first parameter is (`self`), or invalid.
  ClassId self_class(FunctionId f) const { return self_class_[f.v]; }
  /// The class derives (within the file) from torch.nn.Module or a known
  /// module base (torch.nn.*, LightningModule, transformers PreTrainedModel).
  bool is_module_class(ClassId c) const { return module_class_[c.v]; }
  /// Every `self.x = v` in the class's methods (and its local bases'),
  /// sorted by attribute, then in function order.
  const std::vector<SelfAttr>& self_attrs(ClassId c) const { return self_attrs_[c.v]; }
  /// The method a class (or a local base) defines under `name`.
  FunctionId find_method(ClassId c, Symbol name) const;
  /// The function is decorated with `@staticmethod`.
  bool is_staticmethod(FunctionId f) const;

 private:
  friend class Resolver;
  const Module* m_ = nullptr;
  Symbol s_init_ = kNoSymbol, s_forward_ = kNoSymbol, s_call_ = kNoSymbol;
  std::vector<std::vector<Referent>> refs_;
  std::vector<ConstTable> consts_;
  std::vector<Referent> returns_;
  std::vector<ClassId> self_class_;
  std::vector<uint8_t> module_class_;
  std::vector<std::vector<SelfAttr>> self_attrs_;
};

/// A module-level name no statement of the file binds that one of its star
/// imports (`from utils import *`) brings: the external path it denotes
/// there (`torch` when utils does `import torch`). Sorted by symbol.
struct StarBinding {
  Symbol name;
  PathId path;
};

/// Interns the paths it derives (torch.nn -> torch.nn.functional) in m.names;
/// the IR itself is not changed. `star` (sorted by name): what the file's
/// star imports bind, for the globals it loads but never binds.
Resolution compute_resolution(Module& m, const std::vector<StarBinding>& star = {});

/// Appends a short rendering of a referent ("torch.nn.Linear", "fn Net.forward",
/// "instance Net", "result torch.optim.Adam").
void print_referent(const Module& m, const Referent& r, std::string& out);
void print_call_target(const Module& m, const CallTarget& t, std::string& out);

}  // namespace tpf::ir
