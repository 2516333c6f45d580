// Checks on a function's declarations and the types of its operands (PTX
// ISA "Variables", "Operand Type Information"):
// - a name is declared once per scope: ".reg .b32 %r<10>;" declares %r0 ..
//   %r9, so a second "%r<N>" or a "%r5" beside it is a duplicate; a nested
//   "{ }" block may declare the same names again (they shadow the outer ones);
// - the registers of arithmetic instructions whose operands all have the
//   instruction's type (add, mul, fma, min, and ...) are compatible with it:
//   the same type, a bit-size type of the same size, or for integers any
//   integer type of the same size. (ld, st, cvt, mov and instructions with
//   operands of other types are not checked here.)
#include <algorithm>
#include <charconv>
#include <functional>
#include <map>
#include <optional>
#include <unordered_map>

#include <fmt/format.h>

#include "ptx/parser_impl.h"
#include "ptx/printer.h"

namespace softgpu::ptx::detail {
namespace {

// One "{ }" scope. Ranges ("%r<10>") by prefix; single names ordered, so that
// a range finds the names it covers.
struct Scope {
  std::map<std::string, const VarDecl*> singles;
  std::unordered_map<std::string, const VarDecl*> ranges;
};

// "%r15" -> {"%r", 15}; nullopt without trailing digits (or too many).
std::optional<std::pair<std::string, uint32_t>> split_number(const std::string& name) {
  size_t i = name.size();
  while (i > 0 && name[i - 1] >= '0' && name[i - 1] <= '9') --i;
  if (i == name.size() || i == 0 || name.size() - i > 9) return std::nullopt;
  uint32_t n = 0;
  std::from_chars(name.data() + i, name.data() + name.size(), n);
  return std::pair(name.substr(0, i), n);
}

std::string where(const VarDecl& d) {
  return d.reg_count ? fmt::format("'{}<{}>' at {}:{}", quote(d.name), *d.reg_count, d.loc.line, d.loc.col)
                     : fmt::format("{}:{}", d.loc.line, d.loc.col);
}

bool is_bits(Type t) { return t == Type::B8 || t == Type::B16 || t == Type::B32 || t == Type::B64 || t == Type::B128; }
bool is_int(Type t) {
  return t == Type::U8 || t == Type::U16 || t == Type::U32 || t == Type::U64 || t == Type::S8 || t == Type::S16 ||
         t == Type::S32 || t == Type::S64;
}

// The ISA's compatibility of a register's type with an instruction type.
bool compatible(Type insn, Type reg) {
  if (insn == reg) return true;
  if (insn == Type::Pred || reg == Type::Pred) return false;
  if (type_bytes(insn) != type_bytes(reg)) return false;
  return is_bits(insn) || is_bits(reg) || (is_int(insn) && is_int(reg));
}

// What registers an instruction of type t takes, in words.
std::string allowed(Type t) {
  const uint64_t bits = type_bytes(t) * 8;
  if (t == Type::Pred) return ".pred";
  if (is_bits(t)) return fmt::format("a register of {} bits", bits);
  if (is_int(t)) return fmt::format(".u{0}, .s{0} or .b{0}", bits);
  return fmt::format("{} or .b{}", type_name(t), bits);
}

std::string name(const Instruction& in) {
  std::string s = in.opcode;
  for (const auto& m : in.modifiers) s += m;
  return quote(s, 160);
}

// Instructions whose register operands all have the instruction type.
constexpr std::string_view kUniform[] = {"add", "sub", "mul", "mad", "fma", "div", "rem", "abs", "neg", "min",
                                         "max", "rcp", "sqrt", "rsqrt", "sin", "cos", "lg2", "ex2", "tanh",
                                         "copysign", "and", "or", "xor", "not", "cnot", "addc", "subc", "madc"};

Type type_word(std::string_view m) {
  for (int t = int(Type::Pred); t <= int(Type::E5M2x2); ++t)
    if (m == type_name(Type(t))) return Type(t);
  return Type::None;
}

struct RegWalk {
  std::function<void(SourceLoc, std::string)> error;
  std::vector<Scope> scopes;

  void declare(const VarDecl& d) {
    Scope& s = scopes.back();
    if (d.reg_count) {
      if (auto r = s.ranges.find(d.name); r != s.ranges.end() && *d.reg_count > 0 && *r->second->reg_count > 0)
        return error(d.loc, fmt::format("'{}<{}>' declares '{}0' again (first declared by {})", quote(d.name),
                                        *d.reg_count, quote(d.name), where(*r->second)));
      for (auto it = s.singles.lower_bound(d.name); it != s.singles.end() && it->first.starts_with(d.name); ++it)
        if (auto n = split_number(it->first); n && n->first == d.name && n->second < *d.reg_count)
          return error(d.loc, fmt::format("'{}<{}>' declares '{}' again (first declared at {})", quote(d.name),
                                          *d.reg_count, quote(it->first), where(*it->second)));
      s.ranges.emplace(d.name, &d);
      return;
    }
    if (auto e = s.singles.find(d.name); e != s.singles.end())
      return error(d.loc, fmt::format("duplicate declaration of '{}' (first declared at {})", quote(d.name),
                                      where(*e->second)));
    if (auto n = split_number(d.name))
      if (auto r = s.ranges.find(n->first); r != s.ranges.end() && n->second < *r->second->reg_count)
        return error(d.loc, fmt::format("duplicate declaration of '{}' (first declared by {})", quote(d.name),
                                        where(*r->second)));
    s.singles.emplace(d.name, &d);
  }

  // The register declaration a name refers to, as the decoder resolves it.
  const VarDecl* lookup(const std::string& name) const {
    for (auto it = scopes.rbegin(); it != scopes.rend(); ++it)
      if (auto f = it->singles.find(name); f != it->singles.end()) return f->second;
    auto n = split_number(name);
    if (!n) return nullptr;
    for (auto it = scopes.rbegin(); it != scopes.rend(); ++it)
      if (auto f = it->ranges.find(n->first); f != it->ranges.end() && n->second < *f->second->reg_count)
        return f->second;
    return nullptr;
  }

  void instruction(const Instruction& in) {
    if (std::find(std::begin(kUniform), std::end(kUniform), in.opcode) == std::end(kUniform)) return;
    Type t = Type::None;
    bool wide = false;
    for (const auto& m : in.modifiers) {
      if (m == ".wide") wide = true;
      Type w = type_word(m);
      // A second type (mixed precision "add.f32.f16") or a packed type the
      // parser does not name (".u16x2", ".f32x2"): not a uniform form.
      bool packed = m.size() > 2 && m[m.size() - 2] == 'x' && m.back() >= '0' && m.back() <= '9';
      if ((w != Type::None && t != Type::None) || (w == Type::None && packed)) return;
      if (w != Type::None) t = w;
    }
    if (t == Type::None) return;
    for (size_t i = 0; i < in.operands.size(); ++i) {
      const Operand& o = in.operands[i];
      if (o.kind != Operand::Kind::Register) continue;
      if (wide && (i == 0 || i == 3)) continue;  // mul/mad.wide: d (and c) are twice as wide
      const VarDecl* d = lookup(o.name);
      if (!d || d->vector > 1 || compatible(t, d->type)) continue;  // undeclared: the decoder says so
      error(o.loc, fmt::format("operand '{}' of '{}' is a {} register; the instruction takes {}", quote(o.name),
                               name(in), type_name(d->type), allowed(t)));
    }
  }

  void block(const Block& b) {
    scopes.emplace_back();
    for (const auto& st : b.body) {
      if (const auto* v = std::get_if<VarDecl>(&st)) declare(*v);
      else if (const auto* in = std::get_if<Instruction>(&st)) instruction(*in);
      else if (const auto* inner = std::get_if<std::shared_ptr<Block>>(&st)) block(**inner);
    }
    scopes.pop_back();
  }
};

}  // namespace

void Parser::check_registers(const Function& f) {
  RegWalk w{[this](SourceLoc l, std::string m) { error(l, std::move(m)); }, {}};
  // ".reg" parameters of a .func are registers of the function's scope.
  w.scopes.emplace_back();
  for (const auto* list : {&f.returns, &f.params})
    for (const auto& p : *list)
      if (p.space == Space::Reg) w.scopes.back().singles.emplace(p.name, &p);
  w.block(*f.body);
}

}  // namespace softgpu::ptx::detail
