// The --dump-ir printer. One function after another; each block with its
// predecessors, handler and `with` region; one instruction per line, then
// `line:col` and a comment with the variable the value was stored into and
// (with a Resolution) what a name or call resolves to.
// requires: to_ssa (and optionally compute_resolution). produces: text.
#include <charconv>
#include <cstdio>

#include "ir/cfg.h"
#include "ir/resolve.h"

namespace tpf::ir {

namespace {

constexpr size_t kLocColumn = 56;  // where `line:col` starts, for readable columns
constexpr size_t kMaxStr = 40;     // string constants longer than this are shortened

void val(ValueId v, std::string& out) {
  out += '%';
  out += v.valid() ? std::to_string(v.v) : std::string("?");
}

void block_name(BlockId b, std::string& out) {
  out += "bb";
  out += b.valid() ? std::to_string(b.v) : std::string("?");
}

void var_name(const Module& m, const Function& f, VarId v, std::string& out) {
  if (!v.valid() || v.v >= f.vars.size()) {
    out += '?';
    return;
  }
  const Var& var = f.vars[v.v];
  if (var.kind == VarKind::Temp) {
    out += "$t";
    out += std::to_string(v.v);
    return;
  }
  out += m.names.str(var.name);
  if (var.kind == VarKind::CompLocal) out += '\'';  // a comprehension's own name
}

void quoted(std::string_view s, char prefix, std::string& out) {
  if (prefix) out += prefix;
  out += '\'';
  size_t n = 0;
  for (unsigned char c : s) {
    if (n++ >= kMaxStr) {
      out += "...";
      break;
    }
    switch (c) {
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      case '\\': out += "\\\\"; break;
      case '\'': out += "\\'"; break;
      default:
        if (c < 0x20 || c == 0x7f || (prefix == 'b' && c >= 0x80)) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\x%02x", c);
          out += buf;
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  out += '\'';
}

void float_repr(double d, std::string& out) {
  if (d != d) {
    out += "nan";
    return;
  }
  if (d == 1.0 / 0.0) {
    out += "inf";
    return;
  }
  char buf[64];
  auto [p, ec] = std::to_chars(buf, buf + sizeof buf, d);
  std::string_view s(buf, static_cast<size_t>(p - buf));
  out += s;
  if (s.find_first_of(".en") == std::string_view::npos) out += ".0";
}

void operands_list(std::span<const ValueId> ops, std::string& out) {
  for (size_t i = 0; i < ops.size(); ++i) {
    if (i) out += ", ";
    val(ops[i], out);
  }
}

}  // namespace

void print_constant(const ast::Constant& c, std::string& out) {
  switch (c.kind) {
    case ast::Constant::Kind::None_: out += "None"; break;
    case ast::Constant::Kind::True_: out += "True"; break;
    case ast::Constant::Kind::False_: out += "False"; break;
    case ast::Constant::Kind::Ellipsis: out += "..."; break;
    case ast::Constant::Kind::Int:
      if (c.text.size() > 24) {
        out += c.text.substr(0, 20);
        out += "...";
      } else {
        out += c.text;
      }
      break;
    case ast::Constant::Kind::Float: float_repr(c.number, out); break;
    case ast::Constant::Kind::Complex: float_repr(c.number, out); out += 'j'; break;
    case ast::Constant::Kind::Str: quoted(c.text, 0, out); break;
    case ast::Constant::Kind::Bytes: quoted(c.text, 'b', out); break;
  }
}

void print_inst(const Module& m, const Function& f, const Inst& in, std::string& out) {
  auto ops = f.operands(in);
  if (in.result.valid()) {
    val(in.result, out);
    out += " = ";
  }
  out += op_info(in.op).name;
  switch (in.op) {
    case Op::Const:
      out += ' ';
      print_constant(m.constant(in.aux), out);
      break;
    case Op::Param:
      out += ' ';
      out += std::to_string(in.aux);
      if (in.aux < f.params.size()) {
        out += ' ';
        out += m.names.str(f.params[in.aux].name);
      }
      break;
    case Op::LoadLocal:
    case Op::StoreLocal:
      out += ' ';
      var_name(m, f, VarId(in.aux), out);
      if (!ops.empty()) {
        out += ", ";
        operands_list(ops, out);
      }
      break;
    case Op::LoadGlobal:
    case Op::StoreGlobal:
    case Op::DelGlobal:
    case Op::LoadFree:
    case Op::StoreFree:
    case Op::MakeTypeAlias:
      out += ' ';
      out += in.aux == kNoSymbol ? std::string_view("?") : m.names.str(in.aux);
      if (!ops.empty()) {
        out += ", ";
        operands_list(ops, out);
      }
      break;
    case Op::Import:
    case Op::ImportStar:
      out += ' ';
      m.names.append(PathId(in.aux), out);
      break;
    case Op::GetAttr:
    case Op::SetAttr:
    case Op::DelAttr:
      out += ' ';
      val(ops[0], out);
      out += '.';
      out += m.names.str(in.aux);
      if (ops.size() > 1) {
        out += ", ";
        operands_list(ops.subspan(1), out);
      }
      break;
    case Op::BinOp:
    case Op::UnaryOp:
    case Op::Compare:
      out += ' ';
      out += ast::op_spelling(static_cast<ast::Op>(in.aux));
      if (in.flags & kInplaceOp) out += '=';
      out += ' ';
      operands_list(ops, out);
      break;
    case Op::Call: {
      const CallInfo& c = f.call_info(in);
      out += ' ';
      val(ops[0], out);
      out += '(';
      size_t k = 1;
      for (uint32_t i = 0; i < c.npos; ++i, ++k) {
        if (k > 1) out += ", ";
        if (i < 32 && (c.star_mask >> i) & 1) out += '*';
        val(ops[k], out);
      }
      for (uint32_t i = 0; i < c.nkw; ++i, ++k) {
        if (k > 1) out += ", ";
        Symbol kw = f.kw_names[c.kw_first + i];
        if (kw == kNoSymbol) {
          out += "**";
        } else {
          out += m.names.str(kw);
          out += '=';
        }
        val(ops[k], out);
      }
      out += ')';
      break;
    }
    case Op::MakeFunction:
      out += ' ';
      m.names.append(m.fn(FunctionId(in.aux)).qualname, out);
      if (!ops.empty()) {
        out += " defaults ";
        operands_list(ops, out);
      }
      break;
    case Op::MakeClass:
      out += ' ';
      m.names.append(m.cls(ClassId(in.aux)).qualname, out);
      if (!ops.empty()) {
        out += " bases ";
        operands_list(ops, out);
      }
      break;
    case Op::Unpack:
    case Op::MatchSeq: {
      out += ' ';
      operands_list(ops, out);
      out += " count ";
      out += std::to_string(in.aux & 0xFFFF);
      if ((in.aux >> 16) != 0xFFFF) {
        out += " star ";
        out += std::to_string(in.aux >> 16);
      }
      break;
    }
    case Op::Element:
    case Op::MatchClsArg:
    case Op::MatchCls:
      out += ' ';
      operands_list(ops, out);
      out += " #";
      out += std::to_string(in.aux);
      break;
    case Op::WithEnter:
    case Op::WithExit:
      out += ' ';
      operands_list(ops, out);
      out += " r";
      out += std::to_string(in.aux);
      break;
    case Op::FormatValue:
      out += ' ';
      operands_list(ops, out);
      if (in.aux != UINT32_MAX && in.aux < 128) {
        out += " !";
        out += static_cast<char>(in.aux);
      }
      break;
    case Op::Phi: {
      out += ' ';
      BlockId b = f.block_of(InstId(static_cast<uint32_t>(&in - f.insts.data())));
      auto ps = preds(f, b);
      for (size_t i = 0; i < ops.size(); ++i) {
        if (i) out += ", ";
        out += '[';
        if (i < ps.size()) block_name(ps[i], out);
        out += ' ';
        val(ops[i], out);
        out += ']';
      }
      break;
    }
    default:
      if (!ops.empty()) {
        out += ' ';
        operands_list(ops, out);
      }
      break;
  }
  static constexpr std::pair<uint8_t, std::string_view> kFlagNames[] = {
      {kAsync, "async"},     {kExceptional, "exceptional"}, {kReraise, "reraise"},
      {kAssert, "assert"},   {kStarElem, "star"},           {kImportFrom, "from"},
      {kDecorator, "decorator"},
  };
  for (auto [bit, name] : kFlagNames)
    if (in.flags & bit) {
      out += " [";
      out += name;
      out += ']';
    }
}

static void print_terminator(const Function& f, BlockId b, const Inst& in, std::string& out) {
  const Block& bl = f.block(b);
  auto ops = f.operands(in);
  out += op_info(in.op).name;
  switch (in.op) {
    case Op::Jump:
      out += ' ';
      block_name(bl.succ[0], out);
      break;
    case Op::Branch:
    case Op::ForIter:
      out += ' ';
      val(ops[0], out);
      out += ", ";
      block_name(bl.succ[0], out);
      out += ", ";
      block_name(bl.succ[1], out);
      break;
    case Op::Raise:
      if (!ops.empty()) {
        out += ' ';
        val(ops[0], out);
        if (ops.size() > 1) {
          out += " from ";
          val(ops[1], out);
        }
      }
      break;
    default:
      if (!ops.empty()) {
        out += ' ';
        operands_list(ops, out);
      }
      break;
  }
  if (in.flags & kAsync) out += " [async]";
  if (in.flags & kReraise) out += " [reraise]";
  if (in.flags & kAssert) out += " [assert]";
}

static void location(const Module& m, Span s, std::string& out) {
  if (s.begin == 0 && s.end == 0) return;
  if (out.size() - out.rfind('\n') - 1 < kLocColumn)
    out.append(kLocColumn - (out.size() - out.rfind('\n') - 1), ' ');
  else
    out += ' ';
  LineCol lc = m.pos(s);
  out += std::to_string(lc.line);
  out += ':';
  out += std::to_string(lc.col);
}

void print_function(const Module& m, FunctionId fid, std::string& out, const Resolution* res) {
  const Function& f = m.fn(fid);
  out += "function ";
  m.names.append(f.qualname, out);
  out += '(';
  for (size_t i = 0; i < f.params.size(); ++i) {
    if (i) out += ", ";
    if (f.params[i].kind == ParamKind::VarArgs) out += '*';
    if (f.params[i].kind == ParamKind::KwArgs) out += "**";
    out += m.names.str(f.params[i].name);
    if (f.params[i].has_default) out += '=';
  }
  out += ')';
  switch (f.kind) {
    case FunctionKind::Module: out += " module"; break;
    case FunctionKind::Lambda: out += " lambda"; break;
    case FunctionKind::ClassBody: out += " class body"; break;
    case FunctionKind::Function:
      if (f.owner.valid()) {
        out += " method of ";
        m.names.append(m.cls(f.owner).qualname, out);
      }
      break;
  }
  if (f.is_async) out += " async";
  if (f.is_generator) out += " generator";
  if (!f.decorators.empty()) {
    out += " decorators ";
    operands_list(f.decorators, out);
    out += " in parent";
  }
  location(m, Span{f.span.begin, f.span.begin + 1}, out);
  out += '\n';
  for (size_t i = 0; i < f.withs.size(); ++i) {
    out += "  with r" + std::to_string(i) + ": ";
    val(f.withs[i].mgr, out);
    if (f.withs[i].parent != UINT32_MAX) out += " in r" + std::to_string(f.withs[i].parent);
    if (f.withs[i].is_async) out += " [async]";
    out += '\n';
  }
  for (BlockId b : rpo(f)) {
    const Block& bl = f.block(b);
    out += "  ";
    block_name(b, out);
    out += ':';
    auto ps = preds(f, b);
    if (!ps.empty()) {
      out += " <-";
      for (BlockId p : ps) {
        out += ' ';
        block_name(p, out);
      }
    }
    if (bl.exc.valid()) {
      out += "  exc ";
      block_name(bl.exc, out);
    }
    if (bl.with_region != UINT32_MAX) out += "  in r" + std::to_string(bl.with_region);
    out += '\n';
    for (uint32_t i = bl.first; i < bl.first + bl.count; ++i) {
      const Inst& in = f.insts[i];
      out += "    ";
      if (is_terminator(in.op)) print_terminator(f, b, in, out);
      else print_inst(m, f, in, out);
      location(m, in.span, out);
      // Comment: the variable the value was stored into, what it resolves to.
      std::string note;
      if (in.result.valid() && f.values[in.result.v].var.valid()) var_name(m, f, f.values[in.result.v].var, note);
      if (res) {
        std::string what;
        if (in.op == Op::Call) {
          CallTarget t = res->call_target(fid, InstId(i));
          if (t.kind != CallTarget::Kind::Unknown && t.kind != CallTarget::Kind::Method)
            print_call_target(m, t, what);
        } else if (in.result.valid() &&
                   (in.op == Op::GetAttr || in.op == Op::LoadGlobal || in.op == Op::LoadFree ||
                    in.op == Op::Import)) {
          const Referent& r = res->ref(fid, in.result);
          if (r.kind != Referent::Kind::Unknown) print_referent(m, r, what);
        }
        if (in.result.valid()) {
          const ConstValue& c = res->constant(fid, in.result);
          if (c.known() && in.op != Op::Const) {
            what += what.empty() ? "= " : " = ";
            if (c.kind == ConstValue::Kind::Int) what += std::to_string(c.i);
            else if (c.kind == ConstValue::Kind::Float) float_repr(c.d, what);
            else if (c.kind == ConstValue::Kind::Bool) what += c.i ? "True" : "False";
            else if (c.kind == ConstValue::Kind::None) what += "None";
            else quoted(c.s, 0, what);
          }
        }
        if (!what.empty()) {
          if (!note.empty()) note += ' ';
          note += "-> ";
          note += what;
        }
      }
      if (!note.empty()) {
        out += "  ; ";
        out += note;
      }
      out += '\n';
    }
  }
}

void print(const Module& m, std::string& out, const Resolution* res) {
  for (uint32_t i = 0; i < m.functions.size(); ++i) {
    if (i) out += '\n';
    print_function(m, FunctionId(i), out, res);
  }
}

}  // namespace tpf::ir
