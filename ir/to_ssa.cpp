// to_ssa: SSA construction by Braun et al. ("Simple and Efficient
// Construction of Static Single Assignment Form", CC 2013) over a built CFG:
// blocks are filled in RPO, a block is sealed once all its predecessors are
// filled, reads in unsealed blocks (loop headers) get incomplete phis. Then
// trivial phis are removed and instructions are laid out block by block,
// values numbered in print order.
// requires: build_cfg. produces: SSA, Function::bindings, Function::local_refs.
#include <algorithm>
#include <memory>
#include <vector>

#include "ir/cfg.h"

namespace tpf::ir {

namespace {

/// (variable, block) -> current definition. Open addressing with linear
/// probing in two flat vectors: to_ssa does one lookup per local load and
/// store, and a node-based map would allocate for each.
class DefTable {
 public:
  void reserve(size_t n) {
    size_t cap = 16;
    int bits = 4;
    while (cap < n * 2) {
      cap <<= 1;
      ++bits;
    }
    keys_.assign(cap, kEmpty);
    vals_.assign(cap, ValueId());
    used_.clear();
    mask_ = cap - 1;
    shift_ = 64 - bits;
    size_ = 0;
  }
  /// Empties the table for about n entries. A table big enough keeps its
  /// size and clears only the slots in use: clearing all of it for each
  /// function (most use a few slots) cost more than their lookups.
  void reset(size_t n) {
    if (keys_.size() < n * 2) {
      reserve(n);
      return;
    }
    for (uint32_t i : used_) keys_[i] = kEmpty;
    used_.clear();
    size_ = 0;
  }
  /// Frees the table when it is larger than a small function's: a long
  /// function's is the largest scratch array of its construction (52 MB of
  /// a 16 MB one-function file, issue 20), and layout, which allocates the
  /// function's new arrays, no longer reads it. A small table stays for the
  /// next function (reset clears only its used slots).
  void release_if_large() {
    if (keys_.size() <= kKeptSlots) return;
    std::vector<uint64_t>().swap(keys_);
    std::vector<ValueId>().swap(vals_);
    std::vector<uint32_t>().swap(used_);
    mask_ = size_ = 0;
    shift_ = 60;
  }
  const ValueId* find(uint64_t k) const {
    for (size_t i = slot(k);; i = (i + 1) & mask_) {
      if (keys_[i] == k) return &vals_[i];
      if (keys_[i] == kEmpty) return nullptr;
    }
  }
  void set(uint64_t k, ValueId v) {
    if ((size_ + 1) * 2 > keys_.size()) grow();
    for (size_t i = slot(k);; i = (i + 1) & mask_) {
      if (keys_[i] == k) {
        vals_[i] = v;
        return;
      }
      if (keys_[i] == kEmpty) {
        keys_[i] = k;
        vals_[i] = v;
        used_.push_back(static_cast<uint32_t>(i));
        ++size_;
        return;
      }
    }
  }

 private:
  static constexpr uint64_t kEmpty = UINT64_MAX;  // no (var, block) key is all ones
  // 2^16 slots (768 KB with their values): what reset() sizes for a
  // function of about 65,000 instructions.
  static constexpr size_t kKeptSlots = size_t(1) << 16;
  // Fibonacci hashing: the product's top bits mix every bit of the key.
  // (Its low bits do not: for keys `var << 32` of one block they were all
  // zero, every key probed from one slot, and a long function went
  // quadratic.)
  size_t slot(uint64_t k) const { return static_cast<size_t>((k * 0x9E3779B97F4A7C15ull) >> shift_); }
  void grow() {
    std::vector<uint64_t> keys = std::move(keys_);
    std::vector<ValueId> vals = std::move(vals_);
    reserve(keys.size());
    for (size_t i = 0; i < keys.size(); ++i)
      if (keys[i] != kEmpty) set(keys[i], vals[i]);
  }
  std::vector<uint64_t> keys_;
  std::vector<ValueId> vals_;
  std::vector<uint32_t> used_;  // slots holding a key
  size_t mask_ = 0, size_ = 0;
  int shift_ = 60;
};

}  // namespace

/// Braun et al.'s construction for one function at a time; its vectors keep
/// their capacity between functions (SsaWorkspace), so a file's hundreds of
/// functions do not each allocate a dozen scratch arrays.
class SsaBuilder {
 public:
  void run(Function& f, std::span<ValueId* const> held);

 private:
  struct Phi {
    BlockId block;
    VarId var;
    ValueId value;
    uint32_t first;  // into phi_ops_
    uint32_t count;
    bool dead = false;
  };

  static uint64_t key(VarId v, BlockId b) { return (uint64_t(v.v) << 32) | b.v; }
  void write(VarId v, BlockId b, ValueId x) { defs_.set(key(v, b), x); }
  ValueId read(VarId v, BlockId b);
  ValueId read_recursive(VarId v, BlockId b);
  void run_reads(VarId v);
  ValueId new_phi(BlockId b, VarId v);
  void add_operands(uint32_t phi);
  void seal(BlockId b);
  /// What v stands for once trivial phis are gone; inline for the common
  /// case, a value with no alias.
  ValueId resolve(ValueId v) {
    if (v.valid() && v.v < alias_.size() && !alias_[v.v].valid()) return v;
    return resolve_alias(v);
  }
  ValueId resolve_alias(ValueId v);
  ValueId undef();
  void remove_trivial_phis();
  void layout(std::span<ValueId* const> held);
  void release_if_large();
  /// Scratch arrays keep their capacity for the next function up to this
  /// many entries (a function of about 65,000 instructions); a longer one's
  /// are freed once done with (issue 20: they were a long function's peak).
  static constexpr size_t kKeptEntries = size_t(1) << 16;
  template <class T>
  static void release_if_large(std::vector<T>& v, size_t keep) {
    if (v.capacity() > keep) std::vector<T>().swap(v);
  }

  Function* f_ = nullptr;
  std::vector<uint32_t> phi_order_;
  std::vector<ValueId> new_id_;
  std::vector<uint32_t> new_inst_;
  std::vector<Block> blocks_;
  std::vector<uint32_t> unread_;  // layout: lowest old position of blocks b.. (in place or not)
  // layout's output, swapped into the function; after the swap they hold
  // the function's old arrays, whose capacity the next function reuses.
  std::vector<Inst> insts_;
  std::vector<Value> values_;
  std::vector<ValueId> pool_;
  DefTable defs_;
  /// A read still to do: from block, the value goes to phi_ops_[slot] (or
  /// to read_result_ for kReadResult).
  struct PendingRead {
    BlockId block;
    uint32_t slot;
  };
  static constexpr uint32_t kReadResult = UINT32_MAX;
  std::vector<PendingRead> reads_;
  ValueId read_result_;
  std::vector<BlockId> chain_;  // one pending read's single-predecessor walk, reused
  std::vector<uint8_t> sealed_;
  std::vector<uint32_t> unfilled_;
  // Incomplete phis of unsealed blocks: a list per block threaded through
  // incomplete_next_ (phi index -> next phi of the same block).
  std::vector<uint32_t> incomplete_head_;
  std::vector<uint32_t> incomplete_next_;
  size_t incomplete_count_ = 0;
  std::vector<Phi> phis_;
  std::vector<ValueId> phi_ops_;
  std::vector<ValueId> alias_;      // by value: replacement, or kNoValue
  std::vector<uint32_t> phi_of_;    // by value: index into phis_, or UINT32_MAX
  ValueId undef_;
  std::vector<uint32_t> store_count_;
  std::vector<ValueId> last_store_;
};

ValueId SsaBuilder::resolve_alias(ValueId v) {
  ValueId r = v;
  while (r.valid() && r.v < alias_.size() && alias_[r.v].valid()) r = alias_[r.v];
  // Path compression.
  while (v.valid() && v.v < alias_.size() && alias_[v.v].valid() && alias_[v.v] != r) {
    ValueId next = alias_[v.v];
    alias_[v.v] = r;
    v = next;
  }
  return r;
}

ValueId SsaBuilder::undef() {
  if (!undef_.valid()) {
    undef_ = ValueId(static_cast<uint32_t>(f_->values.size()));
    f_->values.push_back(Value{InstId(), VarId()});
    alias_.push_back(kNoValue);
    phi_of_.push_back(UINT32_MAX);
  }
  return undef_;
}

ValueId SsaBuilder::new_phi(BlockId b, VarId v) {
  ValueId val(static_cast<uint32_t>(f_->values.size()));
  f_->values.push_back(Value{InstId(), v});
  alias_.push_back(kNoValue);
  phi_of_.push_back(static_cast<uint32_t>(phis_.size()));
  uint32_t n = static_cast<uint32_t>(preds(*f_, b).size());
  phis_.push_back(Phi{b, v, val, static_cast<uint32_t>(phi_ops_.size()), n});
  phi_ops_.resize(phi_ops_.size() + n);
  return val;
}

void SsaBuilder::add_operands(uint32_t phi) {
  // Operands are pushed last to first, so the walk reads them first to last,
  // in the order a recursive reader would.
  uint32_t n = phis_[phi].count, first = phis_[phi].first;
  for (uint32_t i = n; i-- > 0;) reads_.push_back(PendingRead{preds(*f_, phis_[phi].block)[i], first + i});
  run_reads(phis_[phi].var);
}

ValueId SsaBuilder::read(VarId v, BlockId b) {
  if (const ValueId* x = defs_.find(key(v, b))) return *x;
  return read_recursive(v, b);
}

ValueId SsaBuilder::read_recursive(VarId v, BlockId b) {
  reads_.push_back(PendingRead{b, kReadResult});
  run_reads(v);
  return read_result_;
}

void SsaBuilder::run_reads(VarId v) {
  // Braun et al.'s readVariableRecursive without recursion: a read that
  // reaches a sealed join makes its phi and pushes one read per
  // predecessor, filling the phi's operand slot when done. Recursion went
  // once per join between a use and its definition, and 40,000 `and`s in a
  // row overflowed the stack (issue 20). Each pending read is finished at
  // once (its phi and its writes are made before its operands are read), so
  // the order of phis and values is the recursive one.
  while (!reads_.empty()) {
    PendingRead r = reads_.back();
    reads_.pop_back();
    BlockId b = r.block;
    chain_.clear();
    ValueId val;
    bool join = false;
    // Single-predecessor chains are walked in place.
    for (;;) {
      if (const ValueId* x = defs_.find(key(v, b))) {
        val = *x;
        break;
      }
      auto ps = preds(*f_, b);
      if (!sealed_[b.v]) {
        val = new_phi(b, v);
        uint32_t phi = phi_of_[val.v];
        if (incomplete_next_.size() <= phi) incomplete_next_.resize(phi + 1, UINT32_MAX);
        incomplete_next_[phi] = incomplete_head_[b.v];
        incomplete_head_[b.v] = phi;
        ++incomplete_count_;
        break;
      }
      if (ps.empty()) {
        val = undef();
        break;
      }
      if (ps.size() == 1) {
        chain_.push_back(b);
        b = ps[0];
        continue;
      }
      val = new_phi(b, v);
      join = true;
      break;
    }
    write(v, b, val);  // for a join, this breaks cycles through it
    for (BlockId c : chain_) write(v, c, val);
    if (r.slot == kReadResult)
      read_result_ = val;
    else
      phi_ops_[r.slot] = val;
    if (join) {
      uint32_t phi = phi_of_[val.v];
      uint32_t n = phis_[phi].count, first = phis_[phi].first;
      for (uint32_t i = n; i-- > 0;) reads_.push_back(PendingRead{preds(*f_, b)[i], first + i});
    }
  }
}

void SsaBuilder::seal(BlockId b) {
  if (sealed_[b.v]) return;
  sealed_[b.v] = 1;
  // Filling operands may add more incomplete phis to other (unsealed) blocks, never to b.
  for (uint32_t phi = incomplete_head_[b.v]; phi != UINT32_MAX; phi = incomplete_next_[phi]) {
    add_operands(phi);
    --incomplete_count_;
  }
  incomplete_head_[b.v] = UINT32_MAX;
}

void SsaBuilder::remove_trivial_phis() {
  // A phi whose operands are all one value (or itself) is that value. Removing
  // one can make others trivial, so iterate to a fixpoint.
  bool changed = true;
  while (changed) {
    changed = false;
    for (Phi& p : phis_) {
      if (p.dead) continue;
      ValueId same;
      bool trivial = true;
      for (uint32_t i = 0; i < p.count; ++i) {
        ValueId op = resolve(phi_ops_[p.first + i]);
        if (op == p.value || op == same) continue;
        if (same.valid()) {
          trivial = false;
          break;
        }
        same = op;
      }
      if (!trivial) continue;
      p.dead = true;
      alias_[p.value.v] = same.valid() ? same : undef();
      changed = true;
    }
  }
}

void SsaBuilder::run(Function& f, std::span<ValueId* const> held) {
  f_ = &f;
  phis_.clear();
  phi_ops_.clear();
  chain_.clear();
  incomplete_next_.clear();
  incomplete_count_ = 0;
  undef_ = kNoValue;
  size_t nb = f_->blocks.size();
  sealed_.assign(nb, 0);
  incomplete_head_.assign(nb, UINT32_MAX);
  unfilled_.assign(nb, 0);
  for (uint32_t b = 0; b < nb; ++b) unfilled_[b] = static_cast<uint32_t>(preds(*f_, BlockId(b)).size());
  alias_.assign(f_->values.size(), kNoValue);
  phi_of_.assign(f_->values.size(), UINT32_MAX);
  store_count_.assign(f_->vars.size(), 0);
  last_store_.assign(f_->vars.size(), kNoValue);
  defs_.reset(f_->insts.size() / 2 + 16);
  for (uint32_t bi = 0; bi < nb; ++bi) {
    BlockId b(bi);
    if (unfilled_[bi] == 0) seal(b);
    const Block& bl = f_->blocks[bi];
    for (uint32_t i = bl.first; i < bl.first + bl.count; ++i) {
      Inst& in = f_->insts[i];
      if (in.op == Op::LoadLocal) {
        VarId v(in.aux);
        ValueId x = read(v, b);
        alias_[in.result.v] = x;
        f_->local_refs.push_back(LocalRef{in.span.begin, v, in.result, false});
      } else if (in.op == Op::StoreLocal) {
        VarId v(in.aux);
        ValueId x = in.ops[0];
        write(v, b, x);
        ++store_count_[v.v];
        last_store_[v.v] = x;
        f_->local_refs.push_back(LocalRef{in.span.begin, v, x, true});
      }
    }
    for (BlockId s : succs(*f_, b))
      if (--unfilled_[s.v] == 0 && s.v <= bi) seal(s);
  }
  if (incomplete_count_ != 0) internal_error("to_ssa: a block was never sealed");
  remove_trivial_phis();
  // Every read is done: layout, which allocates the function's new arrays,
  // needs none of the construction's tables.
  defs_.release_if_large();
  release_if_large(phi_of_, kKeptEntries);
  release_if_large(sealed_, kKeptEntries);
  release_if_large(unfilled_, kKeptEntries);
  release_if_large(incomplete_head_, kKeptEntries);
  release_if_large(incomplete_next_, kKeptEntries);
  layout(held);
}

void SsaBuilder::layout(std::span<ValueId* const> held) {
  size_t nvals = f_->values.size();
  // Names for values: the variable they were first stored into.
  for (const LocalRef& r : f_->local_refs)
    if (r.store) {
      ValueId x = resolve(r.value);
      if (x.valid() && x.v < nvals && !f_->values[x.v].var.valid()) f_->values[x.v].var = r.var;
    }
  // Phis by block, in creation order.
  std::vector<uint32_t>& phi_order = phi_order_;
  phi_order.clear();
  for (uint32_t i = 0; i < phis_.size(); ++i)
    if (!phis_[i].dead) phi_order.push_back(i);
  std::stable_sort(phi_order.begin(), phi_order.end(),
                   [&](uint32_t x, uint32_t y) { return phis_[x].block < phis_[y].block; });
  bool need_undef = undef_.valid();

  // Pass 1: new ids for kept instructions and their values.
  std::vector<ValueId>& new_id = new_id_;
  new_id.assign(nvals, kNoValue);
  std::vector<uint32_t>& new_inst = new_inst_;
  new_inst.assign(f_->insts.size(), UINT32_MAX);
  uint32_t next_val = 0, next_inst = 0;
  size_t pi = 0;
  // New block ranges go to blocks_; pass 2 still reads the old ones.
  std::vector<Block>& blocks = blocks_;
  blocks.assign(f_->blocks.begin(), f_->blocks.end());
  // Pass 2 may write the new instructions over the old ones when no write
  // lands on an old instruction it has still to read: pass 2 reads the
  // blocks in order, a block's phis (which read its instructions' spans)
  // before its instructions. Then a long function holds one instruction
  // array, not two (issue 20: its peak). unread[b]: the lowest old position
  // in blocks b and later.
  std::vector<uint32_t>& unread = unread_;
  unread.assign(blocks.size() + 1, UINT32_MAX);
  for (size_t b = blocks.size(); b-- > 0;)
    unread[b] = std::min(unread[b + 1], blocks[b].count ? blocks[b].first : UINT32_MAX);
  bool in_place = true;
  for (uint32_t b = 0; b < blocks.size(); ++b) {
    uint32_t start = next_inst;
    if (b == 0 && need_undef) {
      new_id[undef_.v] = ValueId(next_val++);
      in_place &= next_inst < unread[b];
      ++next_inst;
    }
    while (pi < phi_order.size() && phis_[phi_order[pi]].block.v == b) {
      new_id[phis_[phi_order[pi]].value.v] = ValueId(next_val++);
      in_place &= next_inst < unread[b];
      ++next_inst;
      ++pi;
    }
    const Block& bl = f_->blocks[b];
    for (uint32_t i = bl.first; i < bl.first + bl.count; ++i) {
      const Inst& in = f_->insts[i];
      if (in.op == Op::LoadLocal || in.op == Op::StoreLocal) continue;
      // Writing the slot just read is safe: push copies the instruction
      // before it writes.
      in_place &= next_inst <= i && next_inst < unread[b + 1];
      new_inst[i] = next_inst++;
      if (in.result.valid()) new_id[in.result.v] = ValueId(next_val++);
    }
    blocks[b].first = start;
    blocks[b].count = next_inst - start;
  }
  auto map = [&](ValueId v) {
    ValueId r = resolve(v);
    if (!r.valid() || r.v >= nvals || !new_id[r.v].valid())
      internal_error("to_ssa: an operand refers to a value that was not kept");
    return new_id[r.v];
  };

  // Pass 2: emit.
  std::vector<Inst>& insts = insts_;
  std::vector<Value>& values = values_;
  std::vector<ValueId>& pool = pool_;
  insts.clear();
  if (!in_place) insts.reserve(next_inst);
  values.assign(next_val, Value{});
  pool.clear();
  uint32_t written = 0;
  auto push = [&](Inst in, std::span<const ValueId> ops, VarId var) {
    if (ops.size() <= 3) {
      in.nops = static_cast<uint16_t>(ops.size());
      for (size_t k = 0; k < ops.size(); ++k) in.ops[k] = map(ops[k]);
      for (size_t k = ops.size(); k < 3; ++k) in.ops[k] = kNoValue;
    } else {
      in.ops[0] = ValueId(static_cast<uint32_t>(pool.size()));
      in.ops[1] = in.ops[2] = kNoValue;
      Function::set_operand_count(in, ops.size());
      for (ValueId o : ops) pool.push_back(map(o));
    }
    InstId id(written++);
    if (in.result.valid()) {
      ValueId nv = new_id[in.result.v];
      values[nv.v] = Value{id, var};
      in.result = nv;
    }
    if (in_place) f_->insts[id.v] = in;
    else insts.push_back(in);
  };
  pi = 0;
  for (uint32_t b = 0; b < blocks.size(); ++b) {
    if (b == 0 && need_undef) {
      Inst u;
      u.op = Op::Undef;
      u.result = undef_;
      u.span = Span{f_->span.begin, f_->span.begin};
      push(u, {}, VarId());
    }
    while (pi < phi_order.size() && phis_[phi_order[pi]].block.v == b) {
      const Phi& p = phis_[phi_order[pi++]];
      Inst in;
      in.op = Op::Phi;
      in.result = p.value;
      // A phi's span: the first source position in its block (the loop
      // test or the code after the join); none for an empty join block.
      const Block& bl = f_->blocks[b];
      for (uint32_t k = bl.first; k < bl.first + bl.count; ++k)
        if (f_->insts[k].span.end > f_->insts[k].span.begin) {
          in.span = f_->insts[k].span;
          break;
        }
      push(in, std::span<const ValueId>(phi_ops_.data() + p.first, p.count), p.var);
    }
    const Block& bl = f_->blocks[b];
    for (uint32_t i = bl.first; i < bl.first + bl.count; ++i) {
      const Inst& in = f_->insts[i];
      if (in.op == Op::LoadLocal || in.op == Op::StoreLocal) continue;
      // Operands may point into the old pool; it stays intact until the end.
      VarId var = in.result.valid() ? f_->values[in.result.v].var : VarId();
      push(in, f_->operands(in), var);
    }
  }

  // Bindings: variables stored exactly once.
  f_->bindings.clear();
  for (uint32_t v = 0; v < f_->vars.size(); ++v)
    if (store_count_[v] == 1 && f_->vars[v].kind == VarKind::Local) {
      ValueId r = resolve(last_store_[v]);
      if (r.valid() && r.v < nvals && new_id[r.v].valid())
        f_->bindings.push_back(Binding{VarId(v), new_id[r.v]});
    }
  for (LocalRef& r : f_->local_refs) {
    ValueId x = resolve(r.value);
    r.value = x.valid() && x.v < nvals ? new_id[x.v] : kNoValue;
  }
  // Refs were recorded in block order, which is mostly source order: the
  // check spares stable_sort's buffer when it is entirely.
  auto by_offset = [](const LocalRef& x, const LocalRef& y) { return x.offset < y.offset; };
  if (!std::is_sorted(f_->local_refs.begin(), f_->local_refs.end(), by_offset))
    std::stable_sort(f_->local_refs.begin(), f_->local_refs.end(), by_offset);
  for (WithRegion& w : f_->withs) {
    ValueId m = resolve(w.mgr);
    w.mgr = m.valid() && m.v < nvals ? new_id[m.v] : kNoValue;
    w.enter = w.enter.valid() && new_inst[w.enter.v] != UINT32_MAX ? InstId(new_inst[w.enter.v])
                                                                  : InstId();
  }
  for (ValueId* h : held) {
    if (!h->valid()) continue;
    ValueId r = h->v < nvals ? resolve(*h) : kNoValue;
    *h = r.valid() && r.v < nvals ? new_id[r.v] : kNoValue;
  }
  if (in_place) f_->insts.resize(written);
  else f_->insts.swap(insts);
  f_->values.swap(values);
  f_->operand_pool.swap(pool);
  f_->blocks.swap(blocks);
  f_->in_ssa = true;
  release_if_large();
}

void SsaBuilder::release_if_large() {
  // The swap left the function's old arrays here for the next function to
  // reuse. A long function's (its pre-SSA instructions with every local
  // load and store, 128 MB of a 16 MB one-function file) would stay while
  // the rest of the file is lowered: kept only when a small function's.
  release_if_large(insts_, kKeptEntries);
  release_if_large(values_, kKeptEntries);
  release_if_large(pool_, kKeptEntries);
  release_if_large(blocks_, kKeptEntries / 8);
  release_if_large(new_id_, kKeptEntries);
  release_if_large(new_inst_, kKeptEntries);
  release_if_large(alias_, kKeptEntries);
  release_if_large(unread_, kKeptEntries / 8);
}

SsaWorkspace::SsaWorkspace() : b_(std::make_unique<SsaBuilder>()) {}
SsaWorkspace::~SsaWorkspace() = default;

void to_ssa(Function& f, std::span<ValueId* const> held, SsaWorkspace* ws) {
  if (ws) {
    ws->b_->run(f, held);
    return;
  }
  SsaBuilder b;
  b.run(f, held);
}

}  // namespace tpf::ir
