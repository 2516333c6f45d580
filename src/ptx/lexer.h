// Tokens of PTX text. Internal to the parser; the lexer never fails, it
// returns Error tokens that the parser reports with their location.
#pragma once
#include <cstdint>
#include <string_view>
#include <vector>

#include "ptx/ast.h"

namespace softgpu::ptx {

enum class Tok : uint8_t {
  Ident,      // foo, %r1, $L__BB0_3, ld.global.f32, %tid.x (dotted parts kept)
  Directive,  // .version, .b32, .global
  Int,        // 42, 0x2A, 052, 0b101, 42U
  Float,      // 0f3F800000, 0d3FF0000000000000, 1.5
  String,     // "text" (text holds the contents without quotes, escapes kept)
  Punct,      // one of , ; : { } [ ] ( ) < > + - @ ! | =
  Eof,
  Error,      // a character or literal the lexer cannot read; text is the bad text
};

struct Token {
  Tok kind = Tok::Eof;
  char punct = 0;           // Punct: the character
  std::string_view text;    // a view into the source
  SourceLoc loc;
  uint64_t ival = 0;        // Int value; Float raw bits
  bool is_f64 = false;      // Float: 0d or decimal literal (64-bit)
  bool overflow = false;    // Int: value does not fit in 64 bits
};

// Splits the whole text into tokens; the last token is Eof. Memory is
// proportional to the input.
std::vector<Token> lex(std::string_view text);

}  // namespace softgpu::ptx
