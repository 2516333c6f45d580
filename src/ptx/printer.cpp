#include "ptx/printer.h"

#include <algorithm>

#include <fmt/format.h>

namespace softgpu::ptx {
namespace {

void print_decl(std::string& out, const VarDecl& d, bool with_space = true) {
  if (with_space) {
    out += space_name(d.space);
    out += ' ';
  }
  if (d.align) out += fmt::format(".align {} ", d.align);
  if (d.vector > 1) out += fmt::format(".v{} ", d.vector);
  out += type_name(d.type);
  if (d.is_ptr) {
    out += " .ptr";
    if (d.ptr_space) out += fmt::format(" {}", space_name(*d.ptr_space));
    if (d.ptr_align) out += fmt::format(" .align {}", d.ptr_align);
  }
  out += ' ';
  out += d.name;
  if (d.reg_count) out += fmt::format("<{}>", *d.reg_count);
  for (const auto& dim : d.dims) out += dim ? fmt::format("[{}]", *dim) : std::string("[]");
  if (d.init.empty()) return;
  out += " = {";
  for (size_t i = 0; i < d.init.size(); ++i) {
    const InitValue& v = d.init[i];
    if (i) out += ", ";
    switch (v.kind) {
      case InitValue::Kind::Int: out += fmt::format("{}", v.bits); break;
      case InitValue::Kind::Float:
        out += v.is_double ? fmt::format("0d{:016X}", v.bits) : fmt::format("0f{:08X}", uint32_t(v.bits));
        break;
      case InitValue::Kind::Symbol:
        out += v.generic ? fmt::format("generic({})", v.symbol) : v.symbol;
        if (v.bits) out += fmt::format("+{}", v.bits);
        break;
    }
  }
  out += '}';
}

void print_params(std::string& out, const std::vector<VarDecl>& ps, const char* sep) {
  out += '(';
  for (size_t i = 0; i < ps.size(); ++i) {
    out += i ? "," : "";
    out += sep;
    print_decl(out, ps[i]);
  }
  out += ')';
}

// Deep nesting is legal; indentation stops growing so output stays small.
void indent(std::string& out, int depth) { out.append(size_t(std::min(depth, 8)), '\t'); }

// `loc`: the source location the last ".loc" printed set (a function's
// instructions inherit it until the next one, as the parser reads them).
using LastLoc = std::optional<DebugLoc>;
void print_block(std::string& out, const Block& b, int depth, LastLoc& loc);

void print_statement(std::string& out, const Statement& s, int depth, LastLoc& loc) {
  if (auto* in = std::get_if<Instruction>(&s)) {
    if (in->debug_loc && in->debug_loc != loc) {
      // The inlined_at form needs a .debug_str label the AST does not keep.
      indent(out, depth);
      out += fmt::format(".loc {} {} {}\n", in->debug_loc->file, in->debug_loc->line, in->debug_loc->col);
      loc = in->debug_loc;
    }
    indent(out, depth);
    out += print(*in);
    out += '\n';
  } else if (auto* l = std::get_if<Label>(&s)) {
    out += l->name;
    out += ':';
    if (l->kind == Label::Kind::BranchTargets) {
      out += " .branchtargets ";
      for (size_t i = 0; i < l->targets.size(); ++i) out += (i ? ", " : "") + l->targets[i];
      out += ';';
    } else if (l->kind == Label::Kind::CallPrototype) {
      out += " .callprototype ";
      if (!l->proto_returns.empty()) print_params(out, l->proto_returns, "");
      out += " _ ";
      print_params(out, l->proto_params, "");
      if (l->proto_noreturn) out += " .noreturn";
      out += ';';
    }
    out += '\n';
  } else if (auto* d = std::get_if<VarDecl>(&s)) {
    indent(out, depth);
    print_decl(out, *d);
    out += ";\n";
  } else if (auto* b = std::get_if<std::shared_ptr<Block>>(&s)) {
    if (*b) print_block(out, **b, depth, loc);
  }
}

void print_block(std::string& out, const Block& b, int depth, LastLoc& loc) {
  indent(out, depth);
  out += "{\n";
  for (const auto& s : b.body) print_statement(out, s, depth + 1, loc);
  indent(out, depth);
  out += "}\n";
}

const char* linkage_name(Linkage l) {
  switch (l) {
    case Linkage::Visible: return ".visible ";
    case Linkage::Extern: return ".extern ";
    case Linkage::Weak: return ".weak ";
    case Linkage::Common: return ".common ";
    case Linkage::None: break;
  }
  return "";
}

}  // namespace

std::string_view type_name(Type t) {
  switch (t) {
    case Type::None: return ".b8";  // never produced by the parser for a declaration
    case Type::Pred: return ".pred";
    case Type::B8: return ".b8";
    case Type::B16: return ".b16";
    case Type::B32: return ".b32";
    case Type::B64: return ".b64";
    case Type::B128: return ".b128";
    case Type::U8: return ".u8";
    case Type::U16: return ".u16";
    case Type::U32: return ".u32";
    case Type::U64: return ".u64";
    case Type::S8: return ".s8";
    case Type::S16: return ".s16";
    case Type::S32: return ".s32";
    case Type::S64: return ".s64";
    case Type::F16: return ".f16";
    case Type::F16x2: return ".f16x2";
    case Type::BF16: return ".bf16";
    case Type::BF16x2: return ".bf16x2";
    case Type::TF32: return ".tf32";
    case Type::F32: return ".f32";
    case Type::F64: return ".f64";
    case Type::E4M3: return ".e4m3";
    case Type::E5M2: return ".e5m2";
    case Type::E4M3x2: return ".e4m3x2";
    case Type::E5M2x2: return ".e5m2x2";
  }
  return ".b8";
}

std::string_view space_name(Space s) {
  switch (s) {
    case Space::Reg: return ".reg";
    case Space::Sreg: return ".sreg";
    case Space::Const: return ".const";
    case Space::Global: return ".global";
    case Space::Local: return ".local";
    case Space::Param: return ".param";
    case Space::Shared: return ".shared";
    case Space::Tex: return ".tex";
    case Space::Generic: return ".generic";
  }
  return ".reg";
}

std::string print(const Operand& op) {
  std::string out;
  switch (op.kind) {
    case Operand::Kind::Register:
      out = (op.negate ? "!" : "") + op.name;
      break;
    case Operand::Kind::Symbol:
      out = op.name;
      if (op.ival > 0) out += fmt::format("+{}", op.ival);
      if (op.ival < 0) out += fmt::format("-{}", uint64_t(0) - uint64_t(op.ival));
      break;
    case Operand::Kind::Int: out = fmt::format("{}", op.ival); break;
    case Operand::Kind::Float:
      out = op.is_f64 ? fmt::format("0d{:016X}", op.fbits) : fmt::format("0f{:08X}", uint32_t(op.fbits));
      break;
    case Operand::Kind::Address:
      out = '[';
      if (op.name.empty()) {
        out += fmt::format("{}", op.ival);
      } else {
        out += op.name;
        if (op.ival != 0) out += fmt::format("+{}", op.ival);
      }
      for (const auto& e : op.list) out += ", " + print(e);
      out += ']';
      break;
    case Operand::Kind::Vector:
    case Operand::Kind::List: {
      bool vec = op.kind == Operand::Kind::Vector;
      out = vec ? '{' : '(';
      for (size_t i = 0; i < op.list.size(); ++i) out += (i ? ", " : "") + print(op.list[i]);
      out += vec ? '}' : ')';
      break;
    }
    case Operand::Kind::Sink: out = "_"; break;
  }
  if (op.pair) out += "|" + print(*op.pair);
  return out;
}

std::string print(const Instruction& in) {
  std::string out;
  if (in.guard) out += fmt::format("@{}{} ", in.guard_negated ? "!" : "", *in.guard);
  out += in.opcode;
  for (const auto& m : in.modifiers) out += m;
  for (size_t i = 0; i < in.operands.size(); ++i) {
    out += i ? ", " : " \t";
    out += print(in.operands[i]);
  }
  out += ';';
  return out;
}

std::string print(const Module& m) {
  std::string out;
  out += fmt::format(".version {}.{}\n", m.version_major, m.version_minor);
  if (!m.target.empty()) {
    out += ".target " + m.target;
    for (const auto& o : m.target_options) out += ", " + o;
    out += '\n';
  }
  out += fmt::format(".address_size {}\n\n", m.address_size);
  for (const auto& [id, name] : m.files) out += fmt::format(".file {} \"{}\"\n", id, name);
  for (size_t i = 0; i < m.globals.size(); ++i) {
    out += linkage_name(i < m.global_linkage.size() ? m.global_linkage[i] : Linkage::None);
    print_decl(out, m.globals[i]);
    out += ";\n";
  }
  for (const auto& f : m.functions) {
    out += '\n';
    out += linkage_name(f.linkage);
    out += f.is_entry ? ".entry " : ".func ";
    if (!f.is_entry && !f.returns.empty()) {
      print_params(out, f.returns, "");
      out += ' ';
    }
    out += f.name;
    print_params(out, f.params, "\n\t");
    for (const auto& [name, vals] : f.directives) {
      out += "\n\t." + name;
      for (size_t i = 0; i < vals.size(); ++i) out += fmt::format("{}{}", i ? ", " : " ", vals[i]);
    }
    if (f.noreturn) out += "\n\t.noreturn";
    out += '\n';
    LastLoc loc;
    if (f.body) print_block(out, *f.body, 0, loc);
    else out += ";\n";
  }
  return out;
}

}  // namespace softgpu::ptx
