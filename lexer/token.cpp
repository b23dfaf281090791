// Names and spellings of token kinds, from tokens.def.
// requires: nothing. produces: kind_name(), spelling().
#include "lexer/token.h"

namespace tpf::lexer {
namespace {

struct KindText {
  std::string_view name;      // as --dump-tokens and Python's tokenize print it
  std::string_view spelling;  // keywords and operators only
};

constexpr KindText kKinds[] = {
#define TPF_TOKEN(e, s) {s, {}},
#define TPF_KEYWORD(e, s) {"NAME", s},
#define TPF_OP(e, s) {"OP", s},
#include "lexer/tokens.def"
#undef TPF_TOKEN
#undef TPF_KEYWORD
#undef TPF_OP
};

}  // namespace

std::string_view kind_name(TokKind k) {
  const auto i = static_cast<size_t>(k);
  return i < std::size(kKinds) ? kKinds[i].name : std::string_view("?");
}

std::string_view spelling(TokKind k) {
  const auto i = static_cast<size_t>(k);
  return i < std::size(kKinds) ? kKinds[i].spelling : std::string_view();
}

}  // namespace tpf::lexer
