#include "ptx/lexer.h"

#include <bit>
#include <charconv>
#include <cstring>
#include <optional>
#include <string>

namespace softgpu::ptx {
namespace {

bool is_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_hex(char c) { return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }
// PTX "followsym": characters allowed after the first of an identifier.
bool is_follow(char c) { return is_alpha(c) || is_digit(c) || c == '_' || c == '$'; }

int hex_val(char c) {
  if (is_digit(c)) return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return c - 'A' + 10;
}

class Lexer {
 public:
  explicit Lexer(std::string_view s) : s_(s) {}

  std::vector<Token> run() {
    std::vector<Token> out;
    out.reserve(s_.size() / 4 + 1);
    for (;;) {
      skip_space();
      Token t;
      t.loc = loc();
      if (i_ >= s_.size() && open_comment_) {
        // An unterminated "/*" ran to the end: one Error token where it began.
        t.kind = Tok::Error;
        t.loc = *open_comment_;
        t.text = s_.substr(open_comment_offset_, 2);
        open_comment_.reset();
        out.push_back(t);
        continue;
      }
      if (i_ >= s_.size()) {
        t.kind = Tok::Eof;
        out.push_back(t);
        return out;
      }
      size_t start = i_;
      char c = s_[i_];
      if (is_alpha(c) || c == '_' || c == '$' || c == '%') {
        lex_ident(t);
      } else if (c == '.' && i_ + 1 < s_.size() && (is_alpha(s_[i_ + 1]) || s_[i_ + 1] == '_')) {
        ++i_;
        while (i_ < s_.size() && is_follow(s_[i_])) ++i_;
        t.kind = Tok::Directive;
      } else if (is_digit(c)) {
        lex_number(t);
      } else if (c == '"') {
        lex_string(t);
        t.text = s_.substr(start + 1, t.kind == Tok::String ? i_ - start - 2 : i_ - start - 1);
        out.push_back(t);
        continue;
      } else if (std::strchr(",;:{}[]()<>+-@!|=", c) != nullptr) {
        ++i_;
        t.kind = Tok::Punct;
        t.punct = c;
      } else {
        // One bad byte (or one UTF-8 sequence) becomes one Error token.
        ++i_;
        while (i_ < s_.size() && (static_cast<unsigned char>(s_[i_]) & 0xC0) == 0x80) ++i_;
        t.kind = Tok::Error;
      }
      t.text = s_.substr(start, i_ - start);
      out.push_back(t);
    }
  }

 private:
  SourceLoc loc() const {
    return {line_, static_cast<uint32_t>(i_ - line_start_ + 1)};
  }

  void newline() {
    ++line_;
    line_start_ = i_;
  }

  void skip_space() {
    while (i_ < s_.size()) {
      char c = s_[i_];
      if (c == '\n') {
        ++i_;
        newline();
      } else if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
        ++i_;
      } else if (c == '/' && i_ + 1 < s_.size() && s_[i_ + 1] == '/') {
        while (i_ < s_.size() && s_[i_] != '\n') ++i_;
      } else if (c == '/' && i_ + 1 < s_.size() && s_[i_ + 1] == '*') {
        // An unterminated comment runs to the end of the text (reported there).
        SourceLoc at = loc();
        size_t at_offset = i_;
        i_ += 2;
        while (i_ < s_.size() && !(s_[i_] == '*' && i_ + 1 < s_.size() && s_[i_ + 1] == '/')) {
          ++i_;
          if (s_[i_ - 1] == '\n') newline();
        }
        if (i_ < s_.size()) {
          i_ += 2;
        } else {
          open_comment_ = at;
          open_comment_offset_ = at_offset;
        }
      } else {
        return;
      }
    }
  }

  // Identifiers keep dotted suffixes written without spaces, so that
  // "ld.global.f32" and "%tid.x" are one token; the parser splits them.
  void lex_ident(Token& t) {
    t.kind = Tok::Ident;
    ++i_;
    while (i_ < s_.size() && is_follow(s_[i_])) ++i_;
    while (i_ + 1 < s_.size() && s_[i_] == '.' && is_follow(s_[i_ + 1])) {
      ++i_;
      while (i_ < s_.size() && is_follow(s_[i_])) ++i_;
      // Qualified modifiers: ".shared::cta", ".L2::cache_hint",
      // ".mbarrier::complete_tx::bytes" stay in their dotted part.
      while (i_ + 2 < s_.size() && s_[i_] == ':' && s_[i_ + 1] == ':' && is_follow(s_[i_ + 2])) {
        i_ += 2;
        while (i_ < s_.size() && is_follow(s_[i_])) ++i_;
      }
    }
  }

  void lex_string(Token& t) {
    ++i_;
    while (i_ < s_.size() && s_[i_] != '"' && s_[i_] != '\n') {
      if (s_[i_] == '\\' && i_ + 1 < s_.size() && s_[i_ + 1] != '\n') ++i_;
      ++i_;
    }
    if (i_ < s_.size() && s_[i_] == '"') {
      ++i_;
      t.kind = Tok::String;
    } else {
      t.kind = Tok::Error;  // unterminated string
    }
  }

  void lex_number(Token& t) {
    size_t start = i_;
    auto rest = [&](size_t k) { return i_ + k < s_.size() ? s_[i_ + k] : '\0'; };
    char c1 = rest(1);
    if (s_[i_] == '0' && (c1 == 'f' || c1 == 'F' || c1 == 'd' || c1 == 'D')) {
      size_t n = (c1 == 'f' || c1 == 'F') ? 8 : 16;
      i_ += 2;
      uint64_t v = 0;
      size_t k = 0;
      while (i_ < s_.size() && is_hex(s_[i_]) && k < n) {
        v = (v << 4) | uint64_t(hex_val(s_[i_]));
        ++i_, ++k;
      }
      t.kind = (k == n) ? Tok::Float : Tok::Error;
      t.ival = v;
      t.is_f64 = (n == 16);
    } else if (s_[i_] == '0' && (c1 == 'x' || c1 == 'X' || c1 == 'b' || c1 == 'B')) {
      int base = (c1 == 'x' || c1 == 'X') ? 16 : 2;
      i_ += 2;
      size_t digits = i_;
      t.kind = Tok::Int;
      while (i_ < s_.size() && (base == 16 ? is_hex(s_[i_]) : (s_[i_] == '0' || s_[i_] == '1'))) {
        uint64_t d = uint64_t(hex_val(s_[i_]));
        if (t.ival > (UINT64_MAX - d) / uint64_t(base)) t.overflow = true;
        t.ival = t.ival * uint64_t(base) + d;
        ++i_;
      }
      if (i_ == digits) t.kind = Tok::Error;
    } else {
      while (i_ < s_.size() && is_digit(s_[i_])) ++i_;
      bool is_float = false;
      if (i_ < s_.size() && s_[i_] == '.' && is_digit(rest(1))) {
        is_float = true;
        ++i_;
        while (i_ < s_.size() && is_digit(s_[i_])) ++i_;
      }
      if (i_ < s_.size() && (s_[i_] == 'e' || s_[i_] == 'E') &&
          (is_digit(rest(1)) || ((rest(1) == '-' || rest(1) == '+') && is_digit(rest(2))))) {
        is_float = true;
        i_ += 2;
        while (i_ < s_.size() && is_digit(s_[i_])) ++i_;
      }
      std::string_view txt = s_.substr(start, i_ - start);
      if (is_float) {
        t.kind = Tok::Float;
        t.is_f64 = true;
        double d = 0;
        // from_chars for double is in libstdc++ 11+; out-of-range values are errors.
        auto r = std::from_chars(txt.data(), txt.data() + txt.size(), d);
        if (r.ec != std::errc()) t.kind = Tok::Error;
        t.ival = std::bit_cast<uint64_t>(d);
      } else {
        t.kind = Tok::Int;
        bool octal = txt.size() > 1 && txt[0] == '0';
        uint64_t base = octal ? 8 : 10;
        for (char c : txt) {
          uint64_t d = uint64_t(c - '0');
          if (d >= base) t.kind = Tok::Error;  // "09" is not octal
          if (t.ival > (UINT64_MAX - d) / base) t.overflow = true;
          t.ival = t.ival * base + d;
        }
      }
    }
    if (t.kind == Tok::Int && i_ < s_.size() && (s_[i_] == 'U' || s_[i_] == 'u')) ++i_;
    // "12abc" is one bad token rather than a number followed by a name.
    if (i_ < s_.size() && is_follow(s_[i_])) {
      while (i_ < s_.size() && is_follow(s_[i_])) ++i_;
      t.kind = Tok::Error;
    }
  }

  std::string_view s_;
  size_t i_ = 0;
  uint32_t line_ = 1;
  size_t line_start_ = 0;
  std::optional<SourceLoc> open_comment_;
  size_t open_comment_offset_ = 0;
};

}  // namespace

std::vector<Token> lex(std::string_view text) { return Lexer(text).run(); }

}  // namespace softgpu::ptx
