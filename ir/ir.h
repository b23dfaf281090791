// The IR: per Python scope (module top level, function, lambda, class body)
// one ir::Function, a CFG of basic blocks holding fixed-size instructions in
// SSA form over local names. Comprehensions are lowered inline into the
// enclosing function (as CPython 3.12 does, PEP 709), so their loops are part
// of its CFG. All functions and classes of one file live in an ir::Module.
//
// Pipeline (each pass one file, one entry point declared here):
//   lower (ast -> IR with LoadLocal/StoreLocal) -> build_cfg (RPO numbering,
//   preds) -> to_ssa (phis, no more local loads/stores) -> verify.
#pragma once

#include <array>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "ir/ids.h"
#include "ir/names.h"
#include "lexer/diag.h"
#include "lexer/source.h"
#include "parser/ast.h"

namespace tpf::ir {

// ---------------------------------------------------------------- ops ----

enum class Op : uint8_t {
#define TPF_IR_OP(name, arity, aux, effects) name,
#include "ir/ops.def"
#undef TPF_IR_OP
};
inline constexpr Op kFirstTerminator = Op::Jump;
constexpr bool is_terminator(Op op) { return op >= kFirstTerminator; }

/// Effect bits of ops.def.
enum Effect : uint8_t {
  kPure = 1 << 0,
  kDef = 1 << 1,
  kTerm = 1 << 2,
  kInPlace = 1 << 3,
  kNoGraph = 1 << 4,
  kPropagate = 1 << 5,
  kComputes = 1 << 6,
};

/// What Inst::aux holds for an op.
enum class AuxKind : uint8_t { None, Var, Sym, Path, Const, AstOp, Index, Call, Func, Class };

struct OpInfo {
  std::string_view name;
  int8_t arity;  // -1: variadic
  AuxKind aux;
  uint8_t effects;
};
/// ops.def as a table, in the header so that op_info and has_effect inline:
/// lowering asks once per instruction emitted, the analyses per instruction.
inline constexpr OpInfo kOps[] = {
#define TPF_IR_OP(name, arity, aux, effects) {#name, arity, AuxKind::aux, effects},
#include "ir/ops.def"
#undef TPF_IR_OP
};
inline const OpInfo& op_info(Op op) { return kOps[static_cast<size_t>(op)]; }
inline bool has_effect(Op op, Effect e) { return (op_info(op).effects & e) != 0; }

/// Inst::flags bits.
enum InstFlags : uint8_t {
  kInplaceOp = 1 << 0,    // BinOp from an augmented assignment (`x += y`)
  kAsync = 1 << 1,        // async for / async with / async comprehension
  kExceptional = 1 << 2,  // WithExit on the exception path
  kReraise = 1 << 3,      // bare `raise` / re-raise after a handler or finally
  kAssert = 1 << 4,       // Raise from a failed `assert`
  kStarElem = 1 << 5,     // Element: the starred rest; ExceptMatch: except*
  kImportFrom = 1 << 6,   // Import from `from m import x`
  kDecorator = 1 << 7,    // Call that applies a decorator
};

// ------------------------------------------------------- instructions ----

/// One instruction: 32 bytes. Up to 3 operands inline; more live in
/// Function::operand_pool (ops[0].v is then the first pool index). Counts
/// past 65,534 (a phi with that many predecessors, a literal list that long)
/// store kManyOperands in nops and the count in ops[1].v; use
/// Function::operands / operand_count, never nops directly. Block targets
/// are not operands: they are in the Block (succ, exc).
inline constexpr uint16_t kManyOperands = 0xFFFF;
struct Inst {
  Op op;
  uint8_t flags = 0;
  uint16_t nops = 0;
  ValueId result;            // kNoValue unless the op defines one
  uint32_t aux = UINT32_MAX; // see AuxKind
  ValueId ops[3];
  Span span;                 // the source expression or statement
};
static_assert(sizeof(Inst) == 32, "Inst is meant to stay 32 bytes");

/// A basic block: a contiguous run of Function::insts ending in a terminator.
/// Successors: succ[0], succ[1] as the terminator defines them (Jump: one,
/// Branch/ForIter: two, Return/Raise: none), plus `exc`, the handler an
/// exception raised in this block goes to (kNoBlock: it leaves the function).
struct Block {
  uint32_t first = UINT32_MAX;
  uint32_t count = 0;
  BlockId succ[2];
  BlockId exc;
  uint32_t with_region = UINT32_MAX;  // innermost lexical `with` (Function::withs)
};

/// An SSA value: defined by exactly one instruction. `var` is the source
/// variable the value was first stored into (for dumps and queries), or none.
struct Value {
  InstId def;
  VarId var;
};

enum class VarKind : uint8_t {
  Local,     // a name of this scope
  CompLocal, // a comprehension's own target (scoped to the comprehension)
  Temp,      // introduced by lowering (and/or, x if c else y, comprehension results)
};
struct Var {
  Symbol name = kNoSymbol;  // kNoSymbol for temporaries
  VarKind kind = VarKind::Local;
};

enum class ParamKind : uint8_t { PosOnly, Normal, VarArgs, KwOnly, KwArgs };
struct Param {
  Symbol name;
  ParamKind kind;
  bool has_default = false;
};

/// Operand layout of a Call: callee, `npos` positional values, `nkw` keyword
/// values. kw_names[kw_first + i] is keyword i's name (kNoSymbol for `**x`).
/// Bit i of star_mask: positional i is `*x` (positions >= 32 are never starred
/// in practice; they are treated as plain).
struct CallInfo {
  uint32_t npos = 0;
  uint32_t nkw = 0;
  uint32_t kw_first = 0;
  uint32_t star_mask = 0;
};

/// A lexical `with` item: its manager value and WithEnter, and the enclosing region.
struct WithRegion {
  uint32_t parent = UINT32_MAX;
  ValueId mgr;
  InstId enter;
  bool is_async = false;
};

/// One reference to a local name in the source, kept by to_ssa: the SSA value
/// the name denotes at `offset` (loads) or receives there (stores).
struct LocalRef {
  uint32_t offset;
  VarId var;
  ValueId value;
  bool store;
};

/// A variable stored exactly once in its function, and the value stored.
struct Binding {
  VarId var;
  ValueId value;
};

enum class FunctionKind : uint8_t { Module, Function, Lambda, ClassBody };

class Module;

/// One scope's code. Owns all its blocks, instructions and values.
class Function {
 public:
  Symbol name = kNoSymbol;     // "<module>", "<lambda>" are interned too
  PathId qualname;             // Net.forward, train.<locals>.step
  FunctionKind kind = FunctionKind::Function;
  FunctionId parent;           // enclosing function (the one that creates it)
  ClassId owner;               // the class whose body defines it (methods)
  ast::NodeId node;            // FunctionDef / Lambda / ClassDef / Module
  Span span;
  bool is_async = false;
  bool is_generator = false;
  std::vector<Param> params;
  std::vector<ValueId> defaults;   // in `parent`: default values, positional then kw-only
  std::vector<ValueId> decorators; // in `parent`, in source order
  ValueId value;                   // in `parent`: the function object after decorators

  std::vector<Block> blocks;
  std::vector<Inst> insts;
  std::vector<Value> values;
  std::vector<ValueId> operand_pool;
  std::vector<Var> vars;           // [0, local_count): the scope's names, sorted by symbol
  uint32_t local_count = 0;
  std::vector<CallInfo> calls;
  std::vector<Symbol> kw_names;
  std::vector<WithRegion> withs;

  // Facts of build_cfg (recomputed after each CFG change):
  std::vector<uint32_t> pred_start;  // preds of b: pred_list[pred_start[b] .. pred_start[b+1])
  std::vector<BlockId> pred_list;
  // Facts of to_ssa:
  std::vector<Binding> bindings;     // sorted by var
  std::vector<LocalRef> local_refs;  // sorted by offset
  bool in_ssa = false;

  BlockId entry() const { return BlockId(0); }
  const Inst& inst(InstId i) const { return insts[i.v]; }
  const Inst& def(ValueId v) const { return insts[values[v.v].def.v]; }
  InstId def_id(ValueId v) const { return values[v.v].def; }
  const Block& block(BlockId b) const { return blocks[b.v]; }
  std::span<const ValueId> operands(const Inst& in) const {
    if (in.nops <= 3) return {in.ops, in.nops};
    return {operand_pool.data() + in.ops[0].v, operand_count(in)};
  }
  static uint32_t operand_count(const Inst& in) {
    return in.nops == kManyOperands ? in.ops[1].v : in.nops;
  }
  /// Sets the operand count of an instruction whose operands start at pool
  /// index `first` (count > 3) or are inline.
  static void set_operand_count(Inst& in, size_t n) {
    if (n < kManyOperands) {
      in.nops = static_cast<uint16_t>(n);
    } else {
      in.nops = kManyOperands;
      in.ops[1] = ValueId(static_cast<uint32_t>(n));
    }
  }
  std::span<const Inst> insts_of(BlockId b) const {
    const Block& bl = blocks[b.v];
    return {insts.data() + bl.first, bl.count};
  }
  InstId first_inst(BlockId b) const { return InstId(blocks[b.v].first); }
  const Inst& terminator(BlockId b) const {
    const Block& bl = blocks[b.v];
    return insts[bl.first + bl.count - 1];
  }
  /// The block an instruction belongs to (binary search: blocks are laid
  /// out in order after to_ssa).
  BlockId block_of(InstId i) const;
  const CallInfo& call_info(const Inst& call) const { return calls[call.aux]; }
  /// The binding of `var` when it is stored exactly once, else kNoValue.
  ValueId binding(VarId var) const;
  /// The local variable named `name` (kind Local), or an invalid id.
  VarId find_var(Symbol name) const;
};

/// A class defined in the file.
struct Class {
  Symbol name = kNoSymbol;
  PathId qualname;
  FunctionId body;         // the class body's function
  FunctionId defined_in;   // the function whose code runs the class statement
  ValueId value;           // in defined_in: the class object after decorators
  ast::NodeId node;
  std::vector<ValueId> bases;        // in defined_in
  std::vector<Symbol> keyword_names; // metaclass=..., parallel to keyword values
  std::vector<ValueId> keyword_values;
  std::vector<ValueId> decorators;   // in defined_in
  /// Functions defined directly in the body, in source order (a later def
  /// of the same name wins in method()).
  std::vector<std::pair<Symbol, FunctionId>> methods;
  /// `methods` by name, one entry per name (the last def): filled by lower,
  /// so method() is a binary search (resolution asks per attribute of an
  /// instance, and torch classes define hundreds of methods).
  std::vector<std::pair<Symbol, FunctionId>> method_index;
  FunctionId method(Symbol name) const;
  /// Fills method_index from methods.
  void index_methods();
};

/// All IR of one file. Function 0 is the module's top level.
class Module {
 public:
  const ast::Module* ast = nullptr;
  const SourceFile* src = nullptr;
  Names names;
  std::vector<Function> functions;
  std::vector<Class> classes;
  std::vector<ast::Constant> extra_constants;  // ConstIds past the AST's
  ConstId const_none = 0;
  /// Module-level names some function stores with `global` (their module
  /// binding is then not unique).
  std::vector<Symbol> stored_globally;  // sorted
  /// By VarId of function 0: what global_binding answers for that variable
  /// (stored_globally aside). Filled by build once function 0 is in SSA;
  /// resolution asks once per global load, and the import-only case would
  /// otherwise scan every value of the top level each time.
  std::vector<ValueId> top_bindings;

  const Function& fn(FunctionId f) const { return functions[f.v]; }
  Function& fn(FunctionId f) { return functions[f.v]; }
  const Class& cls(ClassId c) const { return classes[c.v]; }
  const ast::Constant& constant(ConstId c) const {
    return c < ast->constants.size() ? ast->constants[c]
                                     : extra_constants[c - ast->constants.size()];
  }
  /// The value of module-level name `name` when it is bound exactly once at
  /// top level and no function rebinds it, else kNoValue (in function 0).
  ValueId global_binding(Symbol name) const;
  /// The class named `name` (innermost-last definition wins), or invalid.
  ClassId find_class(std::string_view name) const;
  /// The function with this qualified name ("Net.forward", "train"), or invalid.
  FunctionId find_function(std::string_view qualname) const;
  LineCol pos(Span s) const { return src ? src->pos(s.begin) : LineCol{}; }
};

// ------------------------------------------------------------- passes ----

/// Lowers a parsed file to IR (pre-SSA: locals are LoadLocal/StoreLocal).
/// Never fails: constructs it does not model become Undef values. Does not
/// build CFG facts; run build_cfg and to_ssa next (or use `build`).
Module lower(const ast::Module& m, const SourceFile& src, DiagSink& diags);

/// Removes unreachable blocks, renumbers blocks in reverse post-order (entry
/// is 0) and computes predecessor lists. Requires: every block terminated.
void build_cfg(Function& f);

class SsaBuilder;
/// Scratch memory to_ssa reuses from one function to the next (build passes
/// one for all functions of a file).
class SsaWorkspace {
 public:
  SsaWorkspace();
  ~SsaWorkspace();
  SsaWorkspace(const SsaWorkspace&) = delete;
  SsaWorkspace& operator=(const SsaWorkspace&) = delete;

 private:
  friend void to_ssa(Function& f, std::span<ValueId* const> held, SsaWorkspace* ws);
  std::unique_ptr<SsaBuilder> b_;
};

/// Braun et al.'s SSA construction over a function whose CFG is built:
/// places phis at block heads, removes LoadLocal/StoreLocal, removes trivial
/// phis, lays out instructions block by block and numbers values in print
/// order. Records Function::bindings and local_refs. `held` points at the
/// fields elsewhere that name values of this function (Function::defaults,
/// Class::bases, ...); they are rewritten to the new numbers (kNoValue: the
/// value was dropped).
void to_ssa(Function& f, std::span<ValueId* const> held = {}, SsaWorkspace* ws = nullptr);

/// Checks the IR invariants (see verify.cpp). Returns an empty string when
/// the function is well formed, else a description of the first problem.
std::string verify(const Module& m, const Function& f);

/// Whether `build` verifies by default: in debug and test builds.
#ifdef NDEBUG
inline constexpr bool kVerify = false;
#else
inline constexpr bool kVerify = true;
#endif

/// lower + build_cfg + to_ssa for every function; with `check`, also verify,
/// aborting through tpf::internal_error on a violation (our bug, not the user's).
Module build(const ast::Module& m, const SourceFile& src, DiagSink& diags, bool check);

class Resolution;

/// The --dump-ir text: functions in id order, blocks with their
/// predecessors, one instruction per line with `line:col`, the variable a
/// value was stored into, and (given `res`) resolved names and call
/// targets. Deterministic: no addresses, ids numbered in print order.
void print(const Module& m, std::string& out, const Resolution* res = nullptr);
void print_function(const Module& m, FunctionId f, std::string& out,
                    const Resolution* res = nullptr);
/// One instruction without location or comment ("%5 = Call %3(%4, dim=%6)").
void print_inst(const Module& m, const Function& f, const Inst& in, std::string& out);
/// A constant as Python's repr would write it (long strings shortened).
void print_constant(const ast::Constant& c, std::string& out);

/// Aborts with a message asking for a bug report (an IR invariant broke).
[[noreturn]] void internal_error(std::string_view what);

}  // namespace tpf::ir
