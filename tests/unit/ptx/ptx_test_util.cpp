#include "ptx_test_util.h"

#include <fmt/format.h>

namespace softgpu::ptx::test {
namespace {

#define CMP(field, what)                                                     \
  if (!((a.field) == (b.field))) return fmt::format("{}: {} differs", ctx, what)

std::string diff_decl(const VarDecl& a, const VarDecl& b, const std::string& ctx) {
  CMP(space, "space");
  CMP(type, "type");
  CMP(vector, "vector");
  CMP(align, "align");
  CMP(name, "name");
  CMP(reg_count, "reg_count");
  CMP(dims, "dims");
  CMP(is_ptr, "is_ptr");
  CMP(ptr_space, "ptr_space");
  CMP(ptr_align, "ptr_align");
  CMP(init.size(), "init size");
  for (size_t i = 0; i < a.init.size(); ++i) {
    const auto &x = a.init[i], &y = b.init[i];
    if (x.kind != y.kind || x.bits != y.bits || x.is_double != y.is_double || x.symbol != y.symbol ||
        x.generic != y.generic)
      return fmt::format("{}: init[{}] differs", ctx, i);
  }
  return "";
}

std::string diff_decls(const std::vector<VarDecl>& a, const std::vector<VarDecl>& b, const std::string& ctx) {
  if (a.size() != b.size()) return fmt::format("{}: {} vs {} declarations", ctx, a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i)
    if (auto d = diff_decl(a[i], b[i], fmt::format("{}[{}] {}", ctx, i, a[i].name)); !d.empty()) return d;
  return "";
}

std::string diff_operand(const Operand& a, const Operand& b, const std::string& ctx) {
  CMP(kind, "operand kind");
  CMP(name, "operand name");
  CMP(ival, "operand ival");
  CMP(fbits, "operand fbits");
  CMP(is_f64, "operand is_f64");
  CMP(negate, "operand negate");
  CMP(base_is_register, "operand base_is_register");
  CMP(list.size(), "operand list size");
  for (size_t i = 0; i < a.list.size(); ++i)
    if (auto d = diff_operand(a.list[i], b.list[i], ctx); !d.empty()) return d;
  if (bool(a.pair) != bool(b.pair)) return ctx + ": pair presence differs";
  if (a.pair) return diff_operand(*a.pair, *b.pair, ctx);
  return "";
}

std::string diff_block(const Block& a, const Block& b, const std::string& ctx) {
  CMP(body.size(), "statement count");
  for (size_t i = 0; i < a.body.size(); ++i) {
    const Statement &x = a.body[i], &y = b.body[i];
    std::string c = fmt::format("{} stmt {}", ctx, i);
    if (x.index() != y.index()) return c + ": statement kind differs";
    if (auto* p = std::get_if<Instruction>(&x)) {
      const auto& q = std::get<Instruction>(y);
      if (p->opcode != q.opcode || p->modifiers != q.modifiers || p->guard != q.guard ||
          p->guard_negated != q.guard_negated || p->operands.size() != q.operands.size() ||
          p->debug_loc != q.debug_loc)
        return c + ": instruction " + p->opcode + " differs";
      for (size_t k = 0; k < p->operands.size(); ++k)
        if (auto d = diff_operand(p->operands[k], q.operands[k], c); !d.empty()) return d;
    } else if (auto* l = std::get_if<Label>(&x)) {
      const auto& m = std::get<Label>(y);
      if (l->name != m.name || l->kind != m.kind || l->targets != m.targets ||
          l->proto_noreturn != m.proto_noreturn)
        return c + ": label " + l->name + " differs";
      if (auto d = diff_decls(l->proto_returns, m.proto_returns, c); !d.empty()) return d;
      if (auto d = diff_decls(l->proto_params, m.proto_params, c); !d.empty()) return d;
    } else if (auto* v = std::get_if<VarDecl>(&x)) {
      if (auto d = diff_decl(*v, std::get<VarDecl>(y), c); !d.empty()) return d;
    } else {
      auto& bx = std::get<std::shared_ptr<Block>>(x);
      auto& by = std::get<std::shared_ptr<Block>>(y);
      if (auto d = diff_block(*bx, *by, c); !d.empty()) return d;
    }
  }
  return "";
}

}  // namespace

std::string diff(const Module& a, const Module& b) {
  std::string ctx = "module";
  CMP(version_major, "version_major");
  CMP(version_minor, "version_minor");
  CMP(target, "target");
  CMP(target_options, "target_options");
  CMP(address_size, "address_size");
  CMP(global_linkage, "global_linkage");
  CMP(files, "files");
  if (auto d = diff_decls(a.globals, b.globals, "globals"); !d.empty()) return d;
  CMP(functions.size(), "function count");
  for (size_t i = 0; i < a.functions.size(); ++i) {
    const Function &f = a.functions[i], &g = b.functions[i];
    std::string c = "function " + f.name;
    if (f.name != g.name || f.is_entry != g.is_entry || f.linkage != g.linkage ||
        f.directives != g.directives || f.noreturn != g.noreturn || f.body.has_value() != g.body.has_value())
      return c + ": header differs";
    if (auto d = diff_decls(f.returns, g.returns, c + " returns"); !d.empty()) return d;
    if (auto d = diff_decls(f.params, g.params, c + " params"); !d.empty()) return d;
    if (f.body)
      if (auto d = diff_block(*f.body, *g.body, c); !d.empty()) return d;
  }
  return "";
}

}  // namespace softgpu::ptx::test
