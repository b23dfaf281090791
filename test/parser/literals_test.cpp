// Unit tests for parser/literals.h. Every expected value and message was
// printed by python3.11 (ast.parse of the literal, unicodedata, repr(float)).
#include "parser/literals.h"

#include <doctest/doctest.h>

#include <chrono>
#include <cmath>
#include <string>
#include <string_view>

namespace {

using namespace tpf::parser;
using namespace std::string_literals;

// Decoded value, or "ERR@offset: message".
std::string str(std::string_view body, bool raw = false) {
  std::string out;
  const LiteralError e = decode_str(body, raw, out);
  return e.ok ? out : "ERR@" + std::to_string(e.offset) + ": " + e.message;
}

std::string bytes(std::string_view body, bool raw = false) {
  std::string out;
  const LiteralError e = decode_bytes(body, raw, out);
  return e.ok ? out : "ERR@" + std::to_string(e.offset) + ": " + e.message;
}

std::string json(std::string_view utf8) {
  std::string out;
  append_json_string(utf8, out);
  return out;
}

const std::string kCodec = "(unicode error) 'unicodeescape' codec can't decode bytes in position ";

}  // namespace

TEST_CASE("decode_str: plain text and simple escapes") {
  CHECK(str("") == "");
  CHECK(str("abc ä 😀") == "abc ä 😀");
  CHECK(str(R"(\\\'\"\a\b\f\n\r\t\v)") == "\\'\"\a\b\f\n\r\t\v");
  // '\0\7\12\123\777\1234\8' -> '\x00\x07\nS\u01ffS4\\8'
  CHECK(str(R"(\0\7\12\123\777\1234\8)") == "\0\a\nS\u01FFS4\\8"s);
  CHECK(str(R"(\x41\xff\xFf)") == "A\u00FF\u00FF");
  CHECK(str(R"(\u00e9\U0001F600\U0010FFFF)") == "\u00E9\U0001F600\U0010FFFF");
}

TEST_CASE("decode_str: lone surrogates are 3-byte WTF-8") {
  CHECK(str(R"(\ud800)") == "\xED\xA0\x80");
  CHECK(str(R"(\udfff\U0000d83d)") == "\xED\xBF\xBF\xED\xA0\xBD");
  // Two escapes stay two code points, as in the Python str.
  CHECK(str(R"(\ud83d\ude00)") == "\xED\xA0\xBD\xED\xB8\x80");
}

TEST_CASE("decode_str: unknown escapes are kept") {
  CHECK(str(R"(\q\8\ )") == R"(\q\8\ )");
  CHECK(str("\\ä\\😀") == "\\ä\\😀");
  CHECK(str("a\\") == "a\\");  // trailing backslash: CPython's \u005c rewrite
}

TEST_CASE("decode_str: newlines are translated as CPython's tokenizer does") {
  // '''a<CR><LF>b<CR>c''' -> 'a\nb\nc', raw or not
  CHECK(str("a\r\nb\rc") == "a\nb\nc");
  CHECK(str("a\r\nb\rc", true) == "a\nb\nc");
  // backslash + newline is a continuation: '\\\ra' -> 'a', 'a\\\r\nb' -> 'ab'
  CHECK(str("a\\\nb") == "ab");
  CHECK(str("a\\\r\nb") == "ab");
  CHECK(str("\\\ra") == "a");
  // r'\n\\\r\nx' -> '\\n\\\nx'
  CHECK(str("\\n\\\r\nx", true) == "\\n\\\nx");
}

TEST_CASE("decode_str: raw strings keep escapes") {
  CHECK(str(R"(\n\x\N{foo})", true) == R"(\n\x\N{foo})");
}

TEST_CASE("decode_str: \\N{} names, aliases, algorithmic names") {
  CHECK(str(R"(\N{LF}\N{LINE FEED}\N{NBSP})") == "\n\n\u00A0");
  CHECK(str(R"(\N{latin small letter a}\N{SpAcE})") == "a ");
  CHECK(str(R"(\N{HANGUL SYLLABLE GA}\N{CJK UNIFIED IDEOGRAPH-04E00})") == "\uAC00\u4E00");
  CHECK(str(R"(\N{CJK COMPATIBILITY IDEOGRAPH-F900}\N{TANGUT COMPONENT-001})") ==
        "\uF900\U00018800");
  CHECK(str(R"(\N{BYZANTINE MUSICAL SYMBOL FTHORA SKLIRON CHROMA VASIS})") == "\U0001D0C5");
}

TEST_CASE("decode_str: \\N{} names CPython 3.11 does not know") {
  const std::string unknown = ": unknown Unicode character name";
  CHECK(str(R"(\N{LATIN CAPITAL LETTER A WITH MACRON AND GRAVE})") ==
        "ERR@0: " + kCodec + "0-47" + unknown);  // a named sequence
  CHECK(str(R"(\N{hangul syllable ga})") == "ERR@0: " + kCodec + "0-21" + unknown);
  CHECK(str(R"(\N{HANGUL SYLLABLE ga})") == "ERR@0: " + kCodec + "0-21" + unknown);
  CHECK(str(R"(\N{CJK UNIFIED IDEOGRAPH-4e00})") == "ERR@0: " + kCodec + "0-29" + unknown);
  CHECK(str(R"(\N{cjk unified ideograph-4E00})") == "ERR@0: " + kCodec + "0-29" + unknown);
  CHECK(str(R"(\N{CJK UNIFIED IDEOGRAPH-31350})") ==
        "ERR@0: " + kCodec + "0-30" + unknown);  // Unicode 15
  CHECK(str(R"(\N{TANGUT IDEOGRAPH-17000})") == "ERR@0: " + kCodec + "0-25" + unknown);
  CHECK(str(R"(\N{ LATIN SMALL LETTER A})") == "ERR@0: " + kCodec + "0-24" + unknown);
  CHECK(str(R"(\N{LATIN_SMALL_LETTER_A})") == "ERR@0: " + kCodec + "0-23" + unknown);
  CHECK(str(R"(\N{<control-000A>})") == "ERR@0: " + kCodec + "0-17" + unknown);
  CHECK(str(R"(\N{EM})") == "ERR@0: " + kCodec + "0-5" + unknown);  // alias new in Unicode 15
}

TEST_CASE("decode_str: errors and their codec positions") {
  CHECK(str(R"(\x)") == "ERR@0: " + kCodec + "0-1: truncated \\xXX escape");
  CHECK(str(R"(\x4)") == "ERR@0: " + kCodec + "0-2: truncated \\xXX escape");
  CHECK(str(R"(ab\x4g)") == "ERR@2: " + kCodec + "2-4: truncated \\xXX escape");
  CHECK(str(R"(\u12)") == "ERR@0: " + kCodec + "0-3: truncated \\uXXXX escape");
  CHECK(str(R"(\U0011000)") == "ERR@0: " + kCodec + "0-8: truncated \\UXXXXXXXX escape");
  CHECK(str(R"(\U00110000)") == "ERR@0: " + kCodec + "0-9: illegal Unicode character");
  const std::string malformed = ": malformed \\N character escape";
  CHECK(str(R"(\N)") == "ERR@0: " + kCodec + "0-1" + malformed);
  CHECK(str(R"(\Nx)") == "ERR@0: " + kCodec + "0-1" + malformed);
  CHECK(str(R"(\N{)") == "ERR@0: " + kCodec + "0-2" + malformed);
  CHECK(str(R"(\N{})") == "ERR@0: " + kCodec + "0-2" + malformed);
  CHECK(str(R"(\N{a)") == "ERR@0: " + kCodec + "0-3" + malformed);
  CHECK(str(R"(ab\N{foo})") == "ERR@2: " + kCodec + "2-8: unknown Unicode character name");
}

TEST_CASE("decode_str: positions count CPython's rewritten buffer") {
  // Each non-ASCII character counts 10 ("\U000000e4"), a backslash before one 6.
  CHECK(str("ä\\x4g") == "ERR@2: " + kCodec + "10-12: truncated \\xXX escape");
  CHECK(str("ä\\N{foo}") == "ERR@2: " + kCodec + "10-16: unknown Unicode character name");
  CHECK(str("\\N{ä}") == "ERR@0: " + kCodec + "0-13: unknown Unicode character name");
  CHECK(str("\\ä\\x") == "ERR@3: " + kCodec + "16-17: truncated \\xXX escape");
  CHECK(str("\\\\ä\\x") == "ERR@4: " + kCodec + "12-13: truncated \\xXX escape");
  // CRLF counts as the one LF CPython sees: '''a<CR><LF>\x''' fails at 2-3.
  CHECK(str("a\r\n\\x") == "ERR@3: " + kCodec + "2-3: truncated \\xXX escape");
}

TEST_CASE("decode_str: test_ucn.py examples") {
  // test_general: names in any case spell "The rEd fOx ate the sheep."
  const char* general =
      R"(\N{LATIN CAPITAL LETTER T}\N{LATIN SMALL LETTER H}\N{LATIN SMALL LETTER E}\N{SPACE})"
      R"(\N{LATIN SMALL LETTER R}\N{LATIN CAPITAL LETTER E}\N{LATIN SMALL LETTER D}\N{SPACE})"
      R"(\N{LATIN SMALL LETTER f}\N{LATIN CAPITAL LeTtEr o}\N{LATIN SMaLl LETTER x}\N{SPACE})"
      R"(\N{LATIN SMALL LETTER A}\N{LATIN SMALL LETTER T}\N{LATIN SMALL LETTER E}\N{SPACE})"
      R"(\N{LATIN SMALL LETTER T}\N{LATIN SMALL LETTER H}\N{LATIN SMALL LETTER E}\N{SpAcE})"
      R"(\N{LATIN SMALL LETTER S}\N{LATIN SMALL LETTER H}\N{LATIN small LETTER e})"
      R"(\N{LATIN small LETTER e}\N{LATIN SMALL LETTER P}\N{FULL STOP})";
  CHECK(str(general) == "The rEd fOx ate the sheep.");
  // test_hangul_syllables
  CHECK(str(R"(\N{HANGUL SYLLABLE GA}\N{HANGUL SYLLABLE GGWEOSS}\N{HANGUL SYLLABLE DOLS})"
            R"(\N{HANGUL SYLLABLE RYAN}\N{HANGUL SYLLABLE MWIK}\N{HANGUL SYLLABLE BBWAEM})"
            R"(\N{HANGUL SYLLABLE SSEOL}\N{HANGUL SYLLABLE YI}\N{HANGUL SYLLABLE JJYOSS})"
            R"(\N{HANGUL SYLLABLE KYEOLS}\N{HANGUL SYLLABLE PAN}\N{HANGUL SYLLABLE HWEOK})"
            R"(\N{HANGUL SYLLABLE HIH})") ==
        "\uAC00\uAFE8\uB3D0\uB7B8\uBBA0\uBF88\uC370\uC758\uCB40\uCF28\uD310\uD6F8\uD7A3");
  // test_cjk_unified_ideographs
  CHECK(str(R"(\N{CJK UNIFIED IDEOGRAPH-3400}\N{CJK UNIFIED IDEOGRAPH-4DB5})"
            R"(\N{CJK UNIFIED IDEOGRAPH-4E00}\N{CJK UNIFIED IDEOGRAPH-9FCB})"
            R"(\N{CJK UNIFIED IDEOGRAPH-20000}\N{CJK UNIFIED IDEOGRAPH-2A6D6})"
            R"(\N{CJK UNIFIED IDEOGRAPH-2A700}\N{CJK UNIFIED IDEOGRAPH-2B734})"
            R"(\N{CJK UNIFIED IDEOGRAPH-2B740}\N{CJK UNIFIED IDEOGRAPH-2B81D})"
            R"(\N{CJK UNIFIED IDEOGRAPH-3134A})") ==
        "\u3400\u4DB5\u4E00\u9FCB\U00020000\U0002A6D6\U0002A700\U0002B734\U0002B740"
        "\U0002B81D\U0003134A");
  // test_misc_symbols
  CHECK(str(R"(\N{PILCROW SIGN}\N{REPLACEMENT CHARACTER})"
            R"(\N{HALFWIDTH KATAKANA SEMI-VOICED SOUND MARK}\N{FULLWIDTH LATIN SMALL LETTER A})") ==
        "\u00B6\uFFFD\uFF9F\uFF41");
  // test_aliases
  CHECK(str(R"(\N{LATIN CAPITAL LETTER GHA}\N{LATIN SMALL LETTER GHA}\N{KANNADA LETTER LLLA})"
            R"(\N{LAO LETTER FO FON}\N{LAO LETTER FO FAY}\N{LAO LETTER RO}\N{LAO LETTER LO})"
            R"(\N{TIBETAN MARK BKA- SHOG GI MGO RGYAN}\N{YI SYLLABLE ITERATION MARK})"
            R"(\N{PRESENTATION FORM FOR VERTICAL RIGHT WHITE LENTICULAR BRACKET})"
            R"(\N{BYZANTINE MUSICAL SYMBOL FTHORA SKLIRON CHROMA VASIS})") ==
        "\u01A2\u01A3\u0CDE\u0E9D\u0E9F\u0EA3\u0EA5\u0FD0\uA015\uFE18\U0001D0C5");
  // test_named_sequences_sample: unicodedata.lookup has them, "\N{...}" is a SyntaxError
  for (const char* seq : {"LATIN SMALL LETTER R WITH TILDE", "TAMIL SYLLABLE SAI",
                          "TAMIL SYLLABLE MOO", "TAMIL SYLLABLE NNOO", "TAMIL CONSONANT KSS"}) {
    CAPTURE(seq);
    CHECK(lookup_char_name(seq) == -1);
    CHECK(str("\\N{"s + seq + "}").find("unknown Unicode character name") != std::string::npos);
  }
}

TEST_CASE("lookup_char_name: edges of the Unicode 14.0 tables") {
  CHECK(lookup_char_name("HANGUL SYLLABLE I") == 0xC774);  // empty lead consonant
  CHECK(lookup_char_name("HANGUL SYLLABLE IH") == 0xC78F);
  CHECK(lookup_char_name("HANGUL SYLLABLE GGG") == -1);  // GG + G is no vowel
  CHECK(lookup_char_name("HANGUL SYLLABLE") == -1);
  CHECK(lookup_char_name("CJK UNIFIED IDEOGRAPH-2B739") == -1);  // new in 15.0
  CHECK(lookup_char_name("CJK UNIFIED IDEOGRAPH-2B738") == 0x2B738);
  CHECK(lookup_char_name("cjk compatibility ideograph-f900") == 0xF900);
  CHECK(lookup_char_name("null") == 0);
  CHECK(lookup_char_name("VS256") == 0xE01EF);
  CHECK(lookup_char_name("") == -1);
}

TEST_CASE("decode_bytes: escapes, wrapping and verbatim \\u \\N") {
  CHECK(bytes(R"(\x41\777\u1234\N{LF}\q)") == "A\xFF\\u1234\\N{LF}\\q");
  CHECK(bytes(R"(\0\12\\\'\"\a\b\f\n\r\t\v)") == "\0\n\\'\"\a\b\f\n\r\t\v"s);
  CHECK(bytes("a\r\nb\\\r\nc") == "a\nbc");
  CHECK(bytes(R"(\x)", true) == R"(\x)");
}

TEST_CASE("decode_bytes: errors") {
  CHECK(bytes("aä") == "ERR@1: bytes can only contain ASCII literal characters");
  CHECK(bytes("\\xä") == "ERR@2: bytes can only contain ASCII literal characters");
  CHECK(bytes("ä", true) == "ERR@0: bytes can only contain ASCII literal characters");
  CHECK(bytes(R"(\x4)") == "ERR@0: (value error) invalid \\x escape at position 0");
  CHECK(bytes(R"(a\xg0)") == "ERR@1: (value error) invalid \\x escape at position 1");
  CHECK(bytes("a\r\n\\x") == "ERR@3: (value error) invalid \\x escape at position 2");
}

TEST_CASE("int_literal_to_decimal") {
  CHECK(int_literal_to_decimal("0") == "0");
  CHECK(int_literal_to_decimal("0_0") == "0");
  CHECK(int_literal_to_decimal("1_000") == "1000");
  CHECK(int_literal_to_decimal("0x_FF") == "255");
  CHECK(int_literal_to_decimal("0X0") == "0");
  CHECK(int_literal_to_decimal("0o777") == "511");
  CHECK(int_literal_to_decimal("0b1010") == "10");
  CHECK(int_literal_to_decimal("0xFFFFFFFFFFFFFFFFFFFFFFFF") == "79228162514264337593543950335");
  CHECK(int_literal_to_decimal("0b1" + std::string(100, '0')) == "1267650600228229401496703205376");
  CHECK(int_literal_to_decimal("0x1_0000_0000") == "4294967296");
}

TEST_CASE("int_literal_to_decimal: 10,000-digit literals are fast") {
  const auto t0 = std::chrono::steady_clock::now();
  const std::string hex = int_literal_to_decimal("0x" + std::string(10000, 'f'));  // 16**10000 - 1
  const std::string oct = int_literal_to_decimal("0o" + std::string(3000, '7'));   // 8**3000 - 1
  const std::string dec = int_literal_to_decimal(std::string(10000, '9'));
  const double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  CHECK(hex.size() == 12042);
  CHECK(hex.substr(0, 20) == "15842603725730786800");
  CHECK(hex.substr(hex.size() - 20) == "53334711885025509375");
  CHECK(oct.size() == 2710);
  CHECK(oct.substr(0, 20) == "18619198236024468700");
  CHECK(oct.substr(oct.size() - 20) == "12386456974315749375");
  CHECK(dec == std::string(10000, '9'));
  CHECK(ms < 500);  // about 5 ms at -O2; generous for sanitizer builds
}

TEST_CASE("int_literal_digit_limit: CPython 3.11's 4300 digits") {
  CHECK(int_literal_digit_limit(std::string(4300, '1')).ok);
  CHECK(int_literal_digit_limit(std::string(5000, '0')).ok);
  CHECK(int_literal_digit_limit("0x" + std::string(5000, 'f')).ok);
  const LiteralError e = int_literal_digit_limit(std::string(4301, '1'));
  CHECK_FALSE(e.ok);
  CHECK(
      e.message ==
      "Exceeds the limit (4300 digits) for integer string conversion: value has 4301 digits; use "
      "sys.set_int_max_str_digits() to increase the limit - Consider hexadecimal for huge integer "
      "literals to avoid decimal conversion limits.");
  std::string underscored;
  for (int k = 0; k < 4300; ++k) underscored += "1_";
  underscored += "1";
  CHECK(int_literal_digit_limit(underscored).message.find("value has 4301 digits") !=
        std::string::npos);
}

TEST_CASE("float_literal_value") {
  CHECK(float_literal_value("1_0.5e-3") == 0.0105);
  CHECK(float_literal_value("0.1") == 0.1);
  CHECK(float_literal_value("1.") == 1.0);
  CHECK(float_literal_value(".5") == 0.5);
  CHECK(float_literal_value("1E5") == 100000.0);
  CHECK(float_literal_value("1_000.000_1") == 1000.0001);
  CHECK(float_literal_value("2.2250738585072011e-308") == 2.225073858507201e-308);
  CHECK(float_literal_value("9007199254740993") == 9007199254740992.0);  // ties to even
  CHECK(float_literal_value("5e-324") == 5e-324);
  CHECK(float_literal_value("1e-400") == 0.0);
  CHECK(std::isinf(float_literal_value("1e400")));
}

TEST_CASE("nfkc_identifier") {
  CHECK(nfkc_identifier("plain_name") == "plain_name");
  CHECK(nfkc_identifier("\uFB01le") == "file");   // ﬁ ligature
  CHECK(nfkc_identifier("\U0001D431") == "x");    // mathematical bold x
  CHECK(nfkc_identifier("\u210C") == "H");        // ℌ
  CHECK(nfkc_identifier("\u212B") == "\u00C5");   // angstrom sign
  CHECK(nfkc_identifier("\u01C5") == "D\u017E");  // ǅ
}

TEST_CASE("append_json_string") {
  CHECK(json("a\"b\\c\n\r\t\b\f\x01\x1f\x7f") ==
        "\"a\\\"b\\\\c\\n\\r\\t\\b\\f\\u0001\\u001f\x7f\"");
  CHECK(json("é😀") == "\"é😀\"");
  CHECK(json("\xED\xA0\x80") == "\"\\ud800\"");
  CHECK(json("\xED\xB8\x80\xED\xA0\xBD") == "\"\\ude00\\ud83d\"");
  // High then low: the low half stays raw so json.loads keeps two code points.
  CHECK(json("\xED\xA0\xBD\xED\xB8\x80") == "\"\\ud83d\xED\xB8\x80\"");
  std::string out = "x";
  append_json_string("", out);
  CHECK(out == "x\"\"");
}

TEST_CASE("append_json_latin1") {
  std::string out;
  append_json_latin1("\x00\x7f\x80\xff\"\\"s, out);
  CHECK(out == "\"\\u0000\x7f\xC2\x80\xC3\xBF\\\"\\\\\"");
}
