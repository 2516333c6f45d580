// Function bodies: scopes, labels, declarations, instructions, operands.
#include <algorithm>

#include <fmt/format.h>

#include "isa/opcode.h"
#include "ptx/parser_impl.h"

namespace softgpu::ptx::detail {
namespace {

// Mnemonics of the PTX ISA 9.0 instruction set that are not in softgpu's
// opcode table (isa/opcodes.def): valid PTX it does not implement. Any
// other mnemonic it does not know is not PTX.
constexpr std::string_view kPtxOnly[] = {
    "multimem", "tensormap", "getctarank", "clusterlaunchcontrol", "tcgen05", "movmatrix", "txq", "istypep",
    "sured", "suq", "vadd", "vsub", "vabsdiff", "vmin", "vmax", "vshl", "vshr", "vmad", "vset", "vadd2",
    "vsub2", "vavrg2", "vabsdiff2", "vmin2", "vmax2", "vset2", "vadd4", "vsub4", "vavrg4", "vabsdiff4",
    "vmin4", "vmax4", "vset4"};

bool ptx_mnemonic(std::string_view m) {
  return std::find(std::begin(kPtxOnly), std::end(kPtxOnly), m) != std::end(kPtxOnly);
}

}  // namespace

// At '{'. Parses statements up to the matching '}'.
bool Parser::parse_block(Block& b, int depth) {
  const Token& open = next();
  b.loc = open.loc;
  while (!stopped_) {
    if (accept_punct('}')) return true;
    if (at_eof()) {
      error_at(peek(), fmt::format("unexpected end of file: '{{' at line {}:{} is not closed",
                                   open.loc.line, open.loc.col));
      return false;
    }
    size_t before = pos_;
    parse_statement(b.body, depth);
    if (pos_ == before && !at_eof() && !at_punct('}')) next();  // guarantee progress
  }
  return false;
}

void Parser::parse_statement(std::vector<Statement>& body, int depth) {
  const Token& t = peek();
  if (t.kind == Tok::Punct && t.punct == '{') {
    if (depth >= kMaxBlockDepth) {
      error_at(t, fmt::format("blocks nested too deeply (limit {})", kMaxBlockDepth));
      if (!skip_braces()) return;  // EOF: the outer block reports it
      return;
    }
    auto inner = std::make_shared<Block>();
    parse_block(*inner, depth + 1);
    body.emplace_back(std::move(inner));
    return;
  }
  if (t.kind == Tok::Directive) {
    std::string_view d = t.text;
    if (d == ".loc") return parse_loc();
    if (d == ".pragma") return parse_pragma();
    if (d == ".file") return parse_file();
    if (d == ".extern" || d == ".visible" || d == ".weak" || d == ".common") next();
    Space space;
    if (peek().kind == Tok::Directive && space_of(peek().text, space)) {
      next();
      std::vector<VarDecl> decls;
      if (!parse_var_decls(space, decls)) return sync_statement();
      for (auto& v : decls) body.emplace_back(std::move(v));
      return;
    }
    error_at(peek(), fmt::format("unexpected directive '{}' in function body", quote(peek().text)));
    return sync_statement();
  }
  if (t.kind == Tok::Ident && at_punct(':', 1)) return parse_label(body);
  if (t.kind == Tok::Ident || (t.kind == Tok::Punct && t.punct == '@')) {
    Instruction in;
    if (parse_instruction(in)) body.emplace_back(std::move(in));
    else sync_statement();
    return;
  }
  unexpected("an instruction, label or declaration");
  sync_statement();
}

void Parser::parse_label(std::vector<Statement>& body) {
  Label l;
  l.loc = peek().loc;
  l.name = std::string(next().text);
  next();  // ':'
  if (at_dir(".branchtargets")) {
    next();
    l.kind = Label::Kind::BranchTargets;
    do {
      if (peek().kind != Tok::Ident) {
        unexpected("a label name");
        return sync_statement();
      }
      l.targets.emplace_back(next().text);
    } while (accept_punct(','));
    if (!expect_punct(';', "after .branchtargets list")) return sync_statement();
  } else if (at_dir(".callprototype")) {
    next();
    l.kind = Label::Kind::CallPrototype;
    // ".callprototype [(returns)] _ (params) [.noreturn];"
    if (accept_punct('(') && !parse_param_list(l.proto_returns)) return sync_statement();
    if (peek().kind != Tok::Ident || peek().text != "_") {
      unexpected("'_' in .callprototype");
      return sync_statement();
    }
    next();
    if (accept_punct('(') && !parse_param_list(l.proto_params)) return sync_statement();
    if (at_dir(".noreturn")) {
      next();
      l.proto_noreturn = true;
    }
    if (!expect_punct(';', "after .callprototype")) return sync_statement();
  }
  body.emplace_back(std::move(l));
}

bool Parser::parse_instruction(Instruction& in) {
  in.loc = peek().loc;
  in.debug_loc = cur_loc_;
  in.inlined_at = cur_inlined_;
  if (accept_punct('@')) {
    in.guard_negated = accept_punct('!');
    // Predicates may be named without '%' (".reg .pred p;" in inline asm).
    if (peek().kind != Tok::Ident || peek().text.empty()) {
      unexpected("a predicate register after '@'");
      return false;
    }
    in.guard = std::string(next().text);
  }
  const Token& op = peek();
  if (op.kind != Tok::Ident) {
    unexpected("an instruction");
    return false;
  }
  next();
  std::string_view full = op.text;
  size_t dot = full.find('.');
  std::string_view mnem = full.substr(0, dot);
  auto code = isa::find_opcode(mnem);
  // A PTX opcode softgpu does not implement (multimem, tcgen05 ...) is
  // parsed as an instruction of unknown meaning: its operands must still be
  // well formed, and only the kernels that reach it fail (at launch).
  if (!code && !ptx_mnemonic(mnem)) {
    error_at(op, fmt::format("unknown instruction '{}'", quote(mnem)));
    return false;
  }
  in.opcode = std::string(mnem);
  while (dot != std::string_view::npos) {
    size_t end = full.find('.', dot + 1);
    in.modifiers.emplace_back(full.substr(dot, end == std::string_view::npos ? end : end - dot));
    dot = end;
  }
  if (!at_punct(';')) {
    do {
      Operand o;
      if (!parse_operand(o, true)) return false;
      in.operands.push_back(std::move(o));
    } while (accept_punct(','));
  }
  if (!expect_punct(';', "after instruction")) return false;
  check_vector_modifiers(op, in);
  const std::string name = quote(full, 160);
  if (!code) {
    in.not_implemented = true;
    not_implemented(op.loc, fmt::format("instruction '{}' is not implemented by softgpu ('{}' is not an opcode "
                                        "it knows); kernels that use it fail at launch",
                                        name, quote(mnem)));
    return true;
  }
  const auto& info = isa::info(*code);
  // The opcode table counts "[tex, {x, y}]" as separate operands (handle, coordinates).
  size_t n = 0;
  for (const auto& o : in.operands) n += 1 + (o.kind == Operand::Kind::Address ? o.list.size() : 0);
  const uint8_t max_ops = std::max(info.max_operands, isa::wide_form_max_operands(full).value_or(0));
  if (n < info.min_operands || n > max_ops) {
    std::string want = info.min_operands == max_ops ? fmt::format("{}", info.min_operands)
                                                    : fmt::format("{} to {}", info.min_operands, max_ops);
    error_at(op, fmt::format("'{}' expects {} operand{}, found {}", name, want, max_ops == 1 ? "" : "s", n));
    return false;
  }
  if (*code == isa::Opcode::Setmaxnreg) check_setmaxnreg(in);
  return true;
}

bool Parser::parse_operand(Operand& op, bool allow_groups) {
  op.loc = peek().loc;
  if (allow_groups) {
    if (at_punct('(')) return parse_group(op, '(', ')');
    if (at_punct('{')) return parse_group(op, '{', '}');
    if (at_punct('[')) return parse_address(op);
  }
  return parse_simple_operand(op);
}

// "(a, b)" -> List, "{a, _, c}" -> Vector. Elements are simple operands, so
// nesting (and recursion) stops here.
bool Parser::parse_group(Operand& op, char open, char close) {
  next();
  op.kind = open == '(' ? Operand::Kind::List : Operand::Kind::Vector;
  if (accept_punct(close)) return true;
  do {
    Operand e;
    e.loc = peek().loc;
    if (!parse_simple_operand(e)) return false;
    op.list.push_back(std::move(e));
  } while (accept_punct(','));
  return expect_punct(close, open == '(' ? "to close the list" : "to close the vector");
}

bool Parser::parse_simple_operand(Operand& op) {
  op.loc = peek().loc;
  if (accept_punct('!')) {
    if (peek().kind != Tok::Ident) {
      unexpected("a predicate register after '!'");
      return false;
    }
    op.kind = Operand::Kind::Register;
    op.negate = true;
    op.name = std::string(next().text);
    return true;
  }
  bool neg = accept_punct('-');
  const Token& t = peek();
  if (t.kind == Tok::Int) {
    if (t.overflow) {
      error_at(t, "integer literal out of range");
      return false;
    }
    next();
    op.kind = Operand::Kind::Int;
    op.ival = int64_t(neg ? uint64_t(0) - t.ival : t.ival);
    return true;
  }
  if (t.kind == Tok::Float) {
    next();
    op.kind = Operand::Kind::Float;
    op.is_f64 = t.is_f64;
    op.fbits = t.ival;
    if (neg) op.fbits ^= t.is_f64 ? (uint64_t(1) << 63) : (uint64_t(1) << 31);
    return true;
  }
  if (neg || t.kind != Tok::Ident) {
    unexpected("an operand");
    return false;
  }
  next();
  op.name = std::string(t.text);
  if (op.name == "_") op.kind = Operand::Kind::Sink;
  else if (op.name[0] == '%') op.kind = Operand::Kind::Register;
  else op.kind = Operand::Kind::Symbol;
  if (op.kind == Operand::Kind::Symbol && (at_punct('+') || at_punct('-')) && peek(1).kind == Tok::Int) {
    // "sym+8": an address constant.
    bool minus = next().punct == '-';
    const Token& n = next();
    op.ival = int64_t(minus ? uint64_t(0) - n.ival : n.ival);
  }
  if (accept_punct('|')) {
    auto p = std::make_shared<Operand>();
    p->loc = peek().loc;
    if (peek().kind != Tok::Ident) {
      unexpected("a register after '|'");
      return false;
    }
    // Registers may be named without '%' ("q" declared by ".reg .pred q;").
    p->name = std::string(next().text);
    p->kind = p->name == "_" ? Operand::Kind::Sink
              : p->name[0] == '%' ? Operand::Kind::Register : Operand::Kind::Symbol;
    op.pair = std::move(p);
  }
  return true;
}

// "[%rd1]", "[%rd1+8]", "[%rd1+-8]", "[sym+4]", "[0x100]", "[tex, {%f1, %f2}]".
bool Parser::parse_address(Operand& op) {
  next();
  op.kind = Operand::Kind::Address;
  const Token& t = peek();
  if (t.kind == Tok::Ident) {
    op.name = std::string(next().text);
    op.base_is_register = op.name[0] == '%';
  } else if (t.kind == Tok::Int && !t.overflow) {
    op.ival = int64_t(next().ival);
    return expect_punct(']', "to close the address");
  } else {
    unexpected("a register, symbol or address");
    return false;
  }
  if (at_punct('+') || at_punct('-')) {
    bool minus = next().punct == '-';
    if (accept_punct('-')) minus = !minus;
    const Token& n = peek();
    if (n.kind != Tok::Int || n.overflow) {
      unexpected("an address offset");
      return false;
    }
    next();
    op.ival = int64_t(minus ? uint64_t(0) - n.ival : n.ival);
  }
  // Texture and surface operands carry coordinates after the handle.
  while (accept_punct(',')) {
    if (op.list.size() >= 4) {
      error_at(peek(), "too many elements in address operand");
      return false;
    }
    Operand e;
    e.loc = peek().loc;
    bool ok = at_punct('{') ? parse_group(e, '{', '}') : parse_simple_operand(e);
    if (!ok) return false;
    op.list.push_back(std::move(e));
  }
  return expect_punct(']', "to close the address");
}

}  // namespace softgpu::ptx::detail
