// --dump-ast --format json: the schema of shared/tools/pyast2json.py, with
// the field writers generated from parser/ast.def (no hand list of kinds).
// requires: ast::Module, SourceFile (for line/column). produces: JSON text.
#include <cmath>
#include <cstdio>

#include "parser/literals.h"
#include "parser/parser.h"

namespace tpf::parser {

namespace {

using ast::NodeId;
using ast::NodeKind;

class JsonWriter {
 public:
  JsonWriter(const ast::Module& m, const SourceFile& src, std::string& out)
      : m_(m), src_(src), out_(out) {}

  void node(uint32_t id) {
    if (id == UINT32_MAX) {
      out_ += "null";
      return;
    }
    const ast::Node& n = m_.nodes[id];
    out_ += "{\"_type\":\"";
    out_ += ast::kind_name(n.kind);
    out_ += '"';
    switch (n.kind) {
#define F(name, type, s) type(",\"" #name "\":", n, s);
#define TPF_NODE(kind, cat, pos, fields) \
  case NodeKind::kind: {                 \
    fields                               \
  } break;
#include "parser/ast.def"
#undef TPF_NODE
#undef F
    }
    if (ast::has_position(n.kind)) {
      LineCol b = src_.pos(n.span.begin), e = src_.pos(n.span.end);
      out_ += ",\"lineno\":";
      number(b.line);
      out_ += ",\"col_offset\":";
      number(b.col);
      out_ += ",\"end_lineno\":";
      number(e.line);
      out_ += ",\"end_col_offset\":";
      number(e.col);
    }
    out_ += '}';
  }

 private:
  // One writer per field type of ast.def; each gets the quoted key with its comma.
  void Node(const char* key, const ast::Node& n, int s) {
    out_ += key;
    node(n.f[s]);
  }
  void OptNode(const char* key, const ast::Node& n, int s) { Node(key, n, s); }
  void List(const char* key, const ast::Node& n, int s) {
    out_ += key;
    out_ += '[';
    bool first = true;
    for (uint32_t c : m_.list(n.f[s])) {
      if (!first) out_ += ',';
      first = false;
      node(c);
    }
    out_ += ']';
  }
  // Fields new in 3.12 / 3.13 exist in that version's ast only.
  void NewList(const char* key, const ast::Node& n, int s) {
    if (!m_.version.at_least(12)) return;
    if (n.f[s] == UINT32_MAX) {
      out_ += key;
      out_ += "[]";
    } else {
      List(key, n, s);
    }
  }
  void New313(const char* key, const ast::Node& n, int s) {
    if (m_.version.at_least(13)) Node(key, n, s);
  }
  void Ident(const char* key, const ast::Node& n, int s) {
    out_ += key;
    symbol(n.f[s]);
  }
  void OptIdent(const char* key, const ast::Node& n, int s) { Ident(key, n, s); }
  void OptStr(const char* key, const ast::Node& n, int s) { Ident(key, n, s); }
  void IdentList(const char* key, const ast::Node& n, int s) {
    out_ += key;
    out_ += '[';
    bool first = true;
    for (uint32_t sym : m_.list(n.f[s])) {
      if (!first) out_ += ',';
      first = false;
      symbol(sym);
    }
    out_ += ']';
  }
  void Int(const char* key, const ast::Node& n, int s) {
    out_ += key;
    number(static_cast<int64_t>(static_cast<int32_t>(n.f[s])));
  }
  void OpField(const char* key, const ast::Node& n, int) {
    out_ += key;
    op(n.op);
  }
  void OpList(const char* key, const ast::Node& n, int s) {
    out_ += key;
    out_ += '[';
    bool first = true;
    for (uint32_t o : m_.list(n.f[s])) {
      if (!first) out_ += ',';
      first = false;
      op(static_cast<ast::Op>(o));
    }
    out_ += ']';
  }
  void Const(const char* key, const ast::Node& n, int s) {
    out_ += key;
    const ast::Constant& c = m_.constants[n.f[s]];
    switch (c.kind) {
      case ast::Constant::Kind::None_:
        out_ += "null";
        break;
      case ast::Constant::Kind::True_:
        out_ += "true";
        break;
      case ast::Constant::Kind::False_:
        out_ += "false";
        break;
      case ast::Constant::Kind::Ellipsis:
        out_ += "{\"ellipsis\":true}";
        break;
      case ast::Constant::Kind::Int:
        out_ += "{\"int\":\"";
        out_ += c.text;
        out_ += "\"}";
        break;
      case ast::Constant::Kind::Float:
        out_ += "{\"float\":";
        real(c.number);
        out_ += '}';
        break;
      case ast::Constant::Kind::Complex:
        out_ += "{\"complex\":";
        real(c.number);
        out_ += '}';
        break;
      case ast::Constant::Kind::Str:
        out_ += "{\"str\":";
        append_json_string(c.text, out_);
        out_ += '}';
        break;
      case ast::Constant::Kind::Bytes:
        out_ += "{\"bytes\":";
        append_json_latin1(c.text, out_);
        out_ += '}';
        break;
    }
  }

  void symbol(uint32_t sym) {
    if (sym == ast::kNoSymbol) {
      out_ += "null";
      return;
    }
    append_json_string(m_.name(sym), out_);
  }
  void op(ast::Op o) {
    out_ += "{\"_type\":\"";
    out_ += ast::op_name(o);
    out_ += "\"}";
  }
  void number(int64_t v) {
    char buf[24];
    int len = std::snprintf(buf, sizeof buf, "%lld", static_cast<long long>(v));
    out_.append(buf, static_cast<size_t>(len));
  }
  // A string Python's float() reads back exactly: 17 significant digits, "inf".
  void real(double v) {
    out_ += '"';
    if (std::isinf(v)) {
      out_ += v > 0 ? "inf" : "-inf";
    } else if (std::isnan(v)) {
      out_ += "nan";
    } else {
      char buf[40];
      int len = std::snprintf(buf, sizeof buf, "%.17g", v);
      out_.append(buf, static_cast<size_t>(len));
    }
    out_ += '"';
  }

  const ast::Module& m_;
  const SourceFile& src_;
  std::string& out_;
};

}  // namespace

void dump_json(const ast::Module& m, const SourceFile& src, std::string& out) {
  out.reserve(out.size() + m.nodes.size() * 96);
  JsonWriter(m, src, out).node(m.root.v);
}

}  // namespace tpf::parser
