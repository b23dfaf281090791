// Private to lower*.cpp and scopes.cpp: the scope table and the per-function
// builder state of the AST -> IR lowering.
#pragma once

#include <algorithm>
#include <functional>
#include <unordered_map>
#include <vector>

#include "ir/ir.h"

namespace tpf::ir {

/// The names of one Python scope, by CPython's rules: a name stored anywhere
/// in the scope (assignment, for/with/except targets, imports, def/class,
/// walrus, match captures, del) is local unless declared global/nonlocal.
/// Comprehension targets are not: comprehensions get their own names.
struct Scope {
  FunctionKind kind = FunctionKind::Function;
  FunctionId parent;
  std::vector<Symbol> locals;    // sorted; VarId(i) is locals[i]
  std::vector<Symbol> globals;   // sorted
  std::vector<Symbol> nonlocals; // sorted
  // PEP 695 `def f[T]` / `class C[T]`: the names of the annotation scope
  // around this one (sorted). The body reaches them as free variables; a
  // local of the same name shadows them.
  std::vector<Symbol> type_params;

  static bool has(const std::vector<Symbol>& v, Symbol s) {
    return std::binary_search(v.begin(), v.end(), s);
  }
  /// The VarId of a local name, or an invalid id.
  VarId local(Symbol s) const {
    auto it = std::lower_bound(locals.begin(), locals.end(), s);
    if (it == locals.end() || *it != s) return VarId();
    return VarId(static_cast<uint32_t>(it - locals.begin()));
  }
};

/// Scans the scope whose defining node is `node` (Module, [Async]FunctionDef,
/// Lambda or ClassDef).
Scope compute_scope(const ast::Module& m, Names& names, ast::NodeId node, FunctionKind kind);

/// How a name is reached from some scope.
enum class NameKind : uint8_t { Local, Global, Free };

class Lowerer;

/// The comprehension-scoped names in effect, innermost last. A name looks up
/// its innermost binding in a hash map (a scan of every name bound was
/// quadratic in the `for` clauses of one comprehension, issue 20).
class CompNames {
 public:
  size_t size() const { return vars_.size(); }
  VarId find(Symbol s) const {
    if (vars_.empty()) return VarId();
    auto it = innermost_.find(s);
    return it == innermost_.end() ? VarId() : vars_[it->second].var;
  }
  void push(Symbol s, VarId v) {
    auto [it, fresh] = innermost_.try_emplace(s, static_cast<uint32_t>(vars_.size()));
    vars_.push_back(Entry{s, v, fresh ? kNone : it->second});
    if (!fresh) it->second = static_cast<uint32_t>(vars_.size() - 1);
  }
  /// Drops the names bound since size() was `base`.
  void truncate(size_t base) {
    while (vars_.size() > base) {
      const Entry& e = vars_.back();
      if (e.shadowed == kNone)
        innermost_.erase(e.sym);
      else
        innermost_[e.sym] = e.shadowed;
      vars_.pop_back();
    }
  }

 private:
  static constexpr uint32_t kNone = UINT32_MAX;
  struct Entry {
    Symbol sym;
    VarId var;
    uint32_t shadowed;  // the entry this one hides, or kNone
  };
  std::vector<Entry> vars_;
  std::unordered_map<Symbol, uint32_t> innermost_;
};

/// Lowering state of one function: the open block, the exception handler and
/// `with` region new blocks get, the stack of frames that break/continue/
/// return must unwind, and comprehension-scoped names.
class FnLowerer {
 public:
  FnLowerer(Lowerer& l, FunctionId fid);
  void lower_body_of(ast::NodeId node);

  // ---- statements (lower.cpp) ----
  void stmts(ast::ListId body);
  void stmt(ast::NodeId s);

  // ---- expressions (lower_expr.cpp) ----
  ValueId expr(ast::NodeId e);
  /// Lowers `e` as a branch condition: `and`/`or`/`not` become control flow.
  void cond(ast::NodeId e, BlockId if_true, BlockId if_false);
  void store(ast::NodeId target, ValueId v);
  ValueId load_name(Symbol s, Span sp);
  void store_name(Symbol s, ValueId v, Span sp, bool skip_comprehension = false);
  void del_target(ast::NodeId target);

  // ---- emission ----
  BlockId new_block();
  /// Starts `b` (falling through from the open block, if any).
  void begin(BlockId b);
  ValueId emit(Op op, Span sp, std::span<const ValueId> ops, uint32_t aux = UINT32_MAX,
               uint8_t flags = 0);
  ValueId emit0(Op op, Span sp, uint32_t aux = UINT32_MAX, uint8_t flags = 0) {
    return emit(op, sp, {}, aux, flags);
  }
  ValueId emit1(Op op, Span sp, ValueId a, uint32_t aux = UINT32_MAX, uint8_t flags = 0) {
    ValueId o[1] = {a};
    return emit(op, sp, o, aux, flags);
  }
  ValueId emit2(Op op, Span sp, ValueId a, ValueId b, uint32_t aux = UINT32_MAX,
                uint8_t flags = 0) {
    ValueId o[2] = {a, b};
    return emit(op, sp, o, aux, flags);
  }
  ValueId emit3(Op op, Span sp, ValueId a, ValueId b, ValueId c, uint32_t aux = UINT32_MAX,
                uint8_t flags = 0) {
    ValueId o[3] = {a, b, c};
    return emit(op, sp, o, aux, flags);
  }
  void terminate(Op op, Span sp, std::span<const ValueId> ops, BlockId s0 = kNoBlock,
                 BlockId s1 = kNoBlock, uint8_t flags = 0);
  void jump(BlockId target, Span sp);
  void branch(ValueId c, BlockId t, BlockId f, Span sp);
  bool open() const { return cur_.valid(); }
  /// Changes the handler / with region for code emitted next (starting a
  /// new block when the open one has another).
  void set_context(BlockId handler, uint32_t with_region);
  VarId new_temp();
  ValueId const_value(ConstId c, Span sp) { return emit0(Op::Const, sp, c); }

 private:
  struct Frame {
    enum Kind : uint8_t { Loop, Finally, With } kind = Loop;
    BlockId cont{}, brk{};          // Loop
    ast::ListId finalbody = 0;      // Finally
    BlockId outer_handler{};        // Finally, With: the handler outside the statement
    uint32_t outer_with = UINT32_MAX;
    ValueId mgr{};                  // With
    uint32_t region = UINT32_MAX;
    Span span{};
  };

  void lower_function_def(ast::NodeId s, bool is_async);
  void lower_class_def(ast::NodeId s);
  void lower_params(ast::NodeId args);
  void lower_for(ast::NodeId s, bool is_async);
  void lower_while(ast::NodeId s);
  void lower_if(ast::NodeId s);
  void lower_with(ast::NodeId s, std::span<const ast::NodeId> items, bool is_async);
  void lower_try(ast::NodeId s, bool star);
  void lower_match(ast::NodeId s);
  void lower_pattern(ast::NodeId p, ValueId subject, BlockId fail);
  void lower_import(ast::NodeId s);
  void lower_import_from(ast::NodeId s);
  void lower_aug_assign(ast::NodeId s);
  void lower_return(ast::NodeId s);
  void lower_break_continue(ast::NodeId s, bool is_break);
  /// Runs the cleanups (finally bodies, with exits) of frames[depth..], innermost first.
  void unwind_to(size_t depth);

  ValueId lower_call(ast::NodeId e);
  ValueId lower_bool_op(ast::NodeId e);
  ValueId lower_compare(ast::NodeId e);
  ValueId lower_if_exp(ast::NodeId e);
  ValueId lower_comprehension(ast::NodeId e);
  /// The loops of a comprehension's `for` clauses (gens not empty); iterable
  /// is the first clause's, evaluated by the caller.
  void lower_generator(ast::NodeId e, std::span<const ast::NodeId> gens, ValueId iterable,
                       ValueId result);
  ValueId lower_sequence(ast::NodeId e, Op build);
  ValueId lower_dict(ast::NodeId e);
  ValueId lower_lambda(ast::NodeId e);
  ValueId lower_joined_str(ast::NodeId e);
  ValueId lower_slice(ast::NodeId e);
  ValueId lower_named_expr(ast::NodeId e);
  NameKind classify(Symbol s, VarId& var) const;

  Lowerer& L;
  const ast::Module& a;
  FunctionId fid_;
  BlockId cur_;
  BlockId handler_;
  uint32_t with_region_ = UINT32_MAX;
  std::vector<Frame>& frames_;      // Lowerer::frames_
  CompNames comp_vars_;
  std::vector<ValueId>& scratch_;   // operand stack, shared by nested expressions (Lowerer::scratch_)
  /// The operands pushed on scratch_ since `base` (valid until the next push;
  /// emit copies them before touching scratch_).
  std::span<const ValueId> top(size_t base) const {
    return {scratch_.data() + base, scratch_.size() - base};
  }

  Function& f();
  const Scope& scope() const;
  friend class Lowerer;
};

/// Lowers a whole file: the module, then every nested scope in creation order.
class Lowerer {
 public:
  Lowerer(const ast::Module& a, const SourceFile& src, DiagSink& diags);
  Module run();

  /// Creates the Function for a def/lambda/class body and queues its body.
  FunctionId new_function(ast::NodeId node, FunctionKind kind, FunctionId parent, Symbol name,
                          ClassId owner);
  ClassId new_class(ast::NodeId node, FunctionId defined_in, Symbol name);
  NameKind resolve_enclosing(FunctionId from, Symbol s) const;
  void note_global_store(Symbol s) { stored_globally_.push_back(s); }
  /// The bytes of a scope's text (module, def, lambda, class) outside the
  /// scopes nested in it: what its own instructions come from.
  size_t own_bytes(ast::NodeId scope) const;

  const ast::Module& a;
  Module m;
  std::vector<Scope> scopes;  // by FunctionId
  /// Called once a function's body is lowered, with the first ids of the
  /// functions and classes its lowering created (its children: theirs come
  /// later). The function's own IR is complete then; `build` takes it to SSA
  /// at once, so that only one function at a time is in pre-SSA form.
  std::function<void(FunctionId, size_t first_function, size_t first_class)> on_lowered;
  Symbol sym_module, sym_lambda, sym_locals, sym_self;

 private:
  std::vector<FunctionId> pending_;
  std::vector<std::pair<uint32_t, uint32_t>> own_bytes_;  // (scope node, own bytes), by node
  void own_bytes_of_scopes(size_t count);
  std::vector<Symbol> stored_globally_;
  // The stacks of the FnLowerer at work (one at a time; each function's
  // lowering pops all it pushes): kept here so that their capacity carries
  // over from one function to the next.
  std::vector<FnLowerer::Frame> frames_;
  std::vector<ValueId> scratch_;
  friend class FnLowerer;
  DiagSink& diags_;
};

// Inline: every emit and name lookup goes through them.
inline Function& FnLowerer::f() { return L.m.functions[fid_.v]; }
inline const Scope& FnLowerer::scope() const { return L.scopes[fid_.v]; }

}  // namespace tpf::ir
