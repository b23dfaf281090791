// --dump-ast (text): an indented, human-readable tree, one node per line
// with its line:col span; generated from parser/ast.def like the JSON dump.
// requires: ast::Module, SourceFile. produces: text (not a contract).
#include <cstdio>

#include "parser/literals.h"
#include "parser/parser.h"

namespace tpf::parser {

namespace {

using ast::NodeKind;

class TextWriter {
 public:
  TextWriter(const ast::Module& m, const SourceFile& src, std::string& out)
      : m_(m), src_(src), out_(out) {}

  void node(uint32_t id, int indent) {
    if (id == UINT32_MAX) {
      out_ += "None\n";
      return;
    }
    const ast::Node& n = m_.nodes[id];
    out_ += ast::kind_name(n.kind);
    if (n.op != ast::Op::None_) {
      out_ += ' ';
      out_ += ast::op_name(n.op);
    }
    if (ast::has_position(n.kind)) {
      LineCol b = src_.pos(n.span.begin), e = src_.pos(n.span.end);
      out_ += "  @" + std::to_string(b.line) + ':' + std::to_string(b.col) + '-' +
              std::to_string(e.line) + ':' + std::to_string(e.col);
    }
    out_ += '\n';
    switch (n.kind) {
#define F(name, type, s) type(#name, n, s, indent + 1);
#define TPF_NODE(kind, cat, pos, fields) \
  case NodeKind::kind: {                 \
    fields                               \
  } break;
#include "parser/ast.def"
#undef TPF_NODE
#undef F
    }
  }

 private:
  void key(const char* name, int indent) {
    out_.append(static_cast<size_t>(indent) * 2, ' ');
    out_ += name;
    out_ += ": ";
  }
  void Node(const char* name, const ast::Node& n, int s, int indent) {
    key(name, indent);
    node(n.f[s], indent);
  }
  void OptNode(const char* name, const ast::Node& n, int s, int indent) {
    if (n.f[s] == UINT32_MAX) return;
    Node(name, n, s, indent);
  }
  void List(const char* name, const ast::Node& n, int s, int indent) {
    auto items = m_.list(n.f[s]);
    if (items.empty()) return;
    out_.append(static_cast<size_t>(indent) * 2, ' ');
    out_ += name;
    out_ += ":\n";
    for (uint32_t c : items) {
      out_.append(static_cast<size_t>(indent + 1) * 2, ' ');
      out_ += "- ";
      node(c, indent + 2);
    }
  }
  void New313(const char* name, const ast::Node& n, int s, int indent) {
    OptNode(name, n, s, indent);
  }
  void NewList(const char* name, const ast::Node& n, int s, int indent) {
    if (n.f[s] != UINT32_MAX) List(name, n, s, indent);
  }
  void Ident(const char* name, const ast::Node& n, int s, int indent) {
    if (n.f[s] == ast::kNoSymbol) return;
    key(name, indent);
    out_ += m_.name(n.f[s]);
    out_ += '\n';
  }
  void OptIdent(const char* name, const ast::Node& n, int s, int indent) {
    Ident(name, n, s, indent);
  }
  void OptStr(const char* name, const ast::Node& n, int s, int indent) {
    Ident(name, n, s, indent);
  }
  void IdentList(const char* name, const ast::Node& n, int s, int indent) {
    key(name, indent);
    bool first = true;
    for (uint32_t sym : m_.list(n.f[s])) {
      if (!first) out_ += ", ";
      first = false;
      out_ += m_.name(sym);
    }
    out_ += '\n';
  }
  void Int(const char* name, const ast::Node& n, int s, int indent) {
    key(name, indent);
    out_ += std::to_string(static_cast<int32_t>(n.f[s]));
    out_ += '\n';
  }
  void OpField(const char*, const ast::Node&, int, int) {}  // shown after the kind
  void OpList(const char* name, const ast::Node& n, int s, int indent) {
    key(name, indent);
    for (uint32_t o : m_.list(n.f[s])) {
      out_ += ast::op_spelling(static_cast<ast::Op>(o));
      out_ += ' ';
    }
    out_ += '\n';
  }
  void Const(const char* name, const ast::Node& n, int s, int indent) {
    key(name, indent);
    const ast::Constant& c = m_.constants[n.f[s]];
    char buf[40];
    switch (c.kind) {
      case ast::Constant::Kind::None_:
        out_ += "None";
        break;
      case ast::Constant::Kind::True_:
        out_ += "True";
        break;
      case ast::Constant::Kind::False_:
        out_ += "False";
        break;
      case ast::Constant::Kind::Ellipsis:
        out_ += "...";
        break;
      case ast::Constant::Kind::Int:
        out_ += c.text;
        break;
      case ast::Constant::Kind::Float:
      case ast::Constant::Kind::Complex:
        std::snprintf(buf, sizeof buf, "%.17g", c.number);
        out_ += buf;
        if (c.kind == ast::Constant::Kind::Complex) out_ += 'j';
        break;
      case ast::Constant::Kind::Str:
        append_json_string(c.text, out_);
        break;
      case ast::Constant::Kind::Bytes:
        out_ += 'b';
        append_json_latin1(c.text, out_);
        break;
    }
    out_ += '\n';
  }

  const ast::Module& m_;
  const SourceFile& src_;
  std::string& out_;
};

}  // namespace

void dump_text(const ast::Module& m, const SourceFile& src, std::string& out) {
  TextWriter(m, src, out).node(m.root.v, 0);
}

}  // namespace tpf::parser
