// constructs.ptx (hand-written): values checked against what the text says.
#include <gtest/gtest.h>

#include <bit>

#include "ptx/parser.h"
#include "ptx/printer.h"
#include "ptx_test_util.h"

namespace softgpu::ptx {
namespace {

class Constructs : public ::testing::Test {
 protected:
  void SetUp() override {
    text_ = test::read_data("constructs.ptx");
    auto r = parse(text_, "constructs.ptx");
    ASSERT_TRUE(r.module) << render(r.diagnostics, text_);
    m_ = std::move(*r.module);
    for (const auto& f : m_.functions)
      if (f.name == "kern") kern_ = &f;
    ASSERT_NE(kern_, nullptr);
    for (const auto& s : kern_->body->body)
      if (auto* in = std::get_if<Instruction>(&s)) insns_.push_back(in);
  }
  const VarDecl& global(std::string_view n) {
    for (const auto& g : m_.globals)
      if (g.name == n) return g;
    ADD_FAILURE() << "no global " << n;
    static VarDecl none;
    return none;
  }
  // The k-th top-level instruction of kern (0-based), in source order.
  const Instruction& insn(size_t k) { return *insns_.at(k); }

  std::string text_;
  Module m_;
  const Function* kern_ = nullptr;
  std::vector<const Instruction*> insns_;
};

TEST_F(Constructs, Header) {
  EXPECT_EQ(m_.version_major, 8u);
  EXPECT_EQ(m_.version_minor, 0u);
  EXPECT_EQ(m_.target, "sm_90a");
  EXPECT_EQ(m_.target_options, std::vector<std::string>{"debug"});
  using F = std::vector<std::pair<uint32_t, std::string>>;
  EXPECT_EQ(m_.files, (F{{1, "constructs.cu"}, {2, "other.h"}}));
}

TEST_F(Constructs, GlobalsLinkageAndInitializers) {
  ASSERT_EQ(m_.globals.size(), 11u);
  EXPECT_EQ(m_.global_linkage[1], Linkage::Weak);
  EXPECT_EQ(m_.global_linkage[2], Linkage::Common);
  EXPECT_EQ(global("wk").init.at(0).bits, 7u);
  const auto& a = global("addrs");
  ASSERT_EQ(a.init.size(), 3u);
  EXPECT_FALSE(a.init[0].generic);
  EXPECT_TRUE(a.init[1].generic);
  EXPECT_EQ(a.init[1].symbol, "gcount");
  EXPECT_EQ(a.init[1].bits, 4u);  // generic(gcount)+4
  const auto& fl = global("fl");
  ASSERT_EQ(fl.init.size(), 4u);
  EXPECT_EQ(fl.init[0].fvalue, 1.0);
  EXPECT_FALSE(fl.init[0].is_double);
  EXPECT_EQ(fl.init[1].fvalue, -0.5);
  EXPECT_EQ(fl.init[2].fvalue, 1.5);
  EXPECT_EQ(fl.init[3].fvalue, -2.0);
  EXPECT_EQ(global("dl").init.at(1).fvalue, 2.0);  // nested braces flattened
  const auto& n = global("nested");
  ASSERT_EQ(n.init.size(), 4u);
  EXPECT_EQ(int64_t(n.init[1].bits), -2);
  EXPECT_EQ(n.init[2].bits, 16u);  // 0x10
  EXPECT_EQ(n.init[3].bits, 8u);   // 010 is octal
  EXPECT_EQ(n.dims, (std::vector<std::optional<uint64_t>>{2, 2}));
  EXPECT_EQ(global("vecs").vector, 4u);
  EXPECT_EQ(global("vecs").type, Type::F32);
  EXPECT_EQ(global("lbuf").space, Space::Local);
}

TEST_F(Constructs, DeclarationsWithoutBodiesAndRegisterParams) {
  const Function* pf = nullptr;
  for (const auto& f : m_.functions)
    if (f.name == "pairfn") pf = &f;
  ASSERT_NE(pf, nullptr);
  EXPECT_FALSE(pf->body);
  EXPECT_TRUE(pf->noreturn);
  ASSERT_EQ(pf->params.size(), 2u);
  EXPECT_EQ(pf->params[1].space, Space::Reg);
  EXPECT_EQ(pf->returns.at(0).dims, (std::vector<std::optional<uint64_t>>{16}));
  EXPECT_EQ(m_.functions.back().name, "noparams");
  EXPECT_TRUE(m_.functions.back().params.empty());
}

TEST_F(Constructs, KernelParamsAndDirectives) {
  ASSERT_EQ(kern_->params.size(), 3u);
  const auto& p0 = kern_->params[0];
  EXPECT_TRUE(p0.is_ptr);
  EXPECT_EQ(p0.ptr_space, Space::Global);
  EXPECT_EQ(p0.ptr_align, 4u);
  EXPECT_EQ(p0.align, 0u);
  EXPECT_EQ(kern_->params[2].align, 8u);
  using D = std::vector<std::pair<std::string, std::vector<uint64_t>>>;
  EXPECT_EQ(kern_->directives, (D{{"maxntid", {128, 1, 1}},
                                  {"minnctapersm", {2}},
                                  {"maxnreg", {64}},
                                  {"reqnctapercluster", {2, 1, 1}},
                                  {"explicitcluster", {}},
                                  {"maxclusterrank", {8}}}));
}

TEST_F(Constructs, RegisterDeclarations) {
  std::vector<const VarDecl*> regs;
  for (const auto& s : kern_->body->body)
    if (auto* d = std::get_if<VarDecl>(&s)) regs.push_back(d);
  ASSERT_EQ(regs.size(), 10u);  // ".reg .b32 a, b, c;" is three declarations
  EXPECT_EQ(regs[1]->name, "%r");
  EXPECT_EQ(regs[1]->reg_count, 45u);
  EXPECT_EQ(regs[4]->name, "a");
  EXPECT_EQ(regs[6]->name, "c");
  EXPECT_EQ(regs[6]->type, Type::B32);
  EXPECT_FALSE(regs[6]->reg_count);
  EXPECT_EQ(regs[7]->space, Space::Local);
  EXPECT_EQ(regs[7]->dims.at(0), 32u);
}

TEST_F(Constructs, SpecialRegistersAndImmediates) {
  EXPECT_EQ(insn(4).operands[1].name, "%tid.x");
  EXPECT_EQ(insn(5).operands[1].name, "%ctaid.y");
  EXPECT_EQ(insn(6).operands[1].name, "%envreg1");
  EXPECT_EQ(insn(7).operands[1].name, "%clock64");
  EXPECT_EQ(insn(9).operands[1].name, "%lanemask_lt");
  for (size_t k = 4; k <= 9; ++k) EXPECT_EQ(insn(k).operands[1].kind, Operand::Kind::Register) << k;
  EXPECT_EQ(insn(10).operands[1].ival, 0x7fffffff);
  EXPECT_EQ(insn(11).operands[1].ival, -17);
  EXPECT_EQ(insn(12).operands[1].ival, 11);  // 0b1011
  EXPECT_EQ(insn(13).operands[1].ival, 15);  // 017
  EXPECT_EQ(insn(14).operands[1].ival, 4294967295);
  const Operand& f = insn(15).operands[1];
  EXPECT_EQ(f.kind, Operand::Kind::Float);
  EXPECT_FALSE(f.is_f64);
  EXPECT_EQ(std::bit_cast<float>(uint32_t(f.fbits)), 1.0f);
  const Operand& d = insn(16).operands[1];
  EXPECT_TRUE(d.is_f64);
  EXPECT_EQ(std::bit_cast<double>(d.fbits), 1.0);
  EXPECT_EQ(insn(17).operands[1].kind, Operand::Kind::Symbol);
  EXPECT_EQ(insn(18).operands[1].name, "sbuf");
  EXPECT_EQ(insn(18).operands[1].ival, 8);
}

TEST_F(Constructs, AddressesVectorsAndPairs) {
  const Instruction& ld4 = insn(19);
  EXPECT_EQ(ld4.opcode, "ld");
  EXPECT_EQ(ld4.modifiers, (std::vector<std::string>{".global", ".nc", ".v4", ".f32"}));
  const Operand& v = ld4.operands[0];
  ASSERT_EQ(v.kind, Operand::Kind::Vector);
  ASSERT_EQ(v.list.size(), 4u);
  EXPECT_EQ(v.list[2].kind, Operand::Kind::Sink);
  EXPECT_EQ(v.list[3].name, "%f4");
  auto addr = [&](size_t k) { return insn(k).operands[1]; };
  EXPECT_EQ(addr(20).name, "%rd1");
  EXPECT_EQ(addr(20).ival, 8);
  EXPECT_TRUE(addr(20).base_is_register);
  EXPECT_EQ(addr(21).ival, -8);
  EXPECT_EQ(addr(22).name, "sbuf");
  EXPECT_FALSE(addr(22).base_is_register);
  EXPECT_EQ(addr(23).ival, 4);
  EXPECT_EQ(addr(24).name, "");
  EXPECT_EQ(addr(24).ival, 0x100);
  const Instruction& shfl = insn(25);
  ASSERT_TRUE(shfl.operands[0].pair);
  EXPECT_EQ(shfl.operands[0].name, "%r17");
  EXPECT_EQ(shfl.operands[0].pair->name, "%p1");
  EXPECT_EQ(shfl.operands[4].ival, -1);
  EXPECT_EQ(insn(27).guard, "%p2");
  EXPECT_FALSE(insn(27).guard_negated);
  EXPECT_EQ(insn(28).guard, "%p1");
  EXPECT_TRUE(insn(28).guard_negated);
  EXPECT_EQ(insn(29).operands[1].kind, Operand::Kind::Vector);
  EXPECT_EQ(insn(30).opcode, "cp");
  EXPECT_EQ(insn(30).modifiers, (std::vector<std::string>{".async", ".cg", ".shared", ".global"}));
}

TEST_F(Constructs, ScopesCallsAndTables) {
  std::vector<std::shared_ptr<Block>> scopes;
  std::vector<const Label*> labels;
  for (const auto& s : kern_->body->body) {
    if (auto* b = std::get_if<std::shared_ptr<Block>>(&s)) scopes.push_back(*b);
    if (auto* l = std::get_if<Label>(&s)) labels.push_back(l);
  }
  ASSERT_EQ(scopes.size(), 2u);
  // First callseq: 2 param decls, 2 st, retval decl, call, ld, nested scope.
  ASSERT_EQ(scopes[0]->body.size(), 8u);
  ASSERT_TRUE(std::holds_alternative<std::shared_ptr<Block>>(scopes[0]->body[7]));
  auto& inner = std::get<std::shared_ptr<Block>>(scopes[0]->body[7]);
  ASSERT_EQ(inner->body.size(), 2u);
  EXPECT_EQ(std::get<VarDecl>(inner->body[0]).name, "inner");

  const auto& proto = std::get<Label>(scopes[1]->body[3]);
  EXPECT_EQ(proto.name, "prototype_3");
  EXPECT_EQ(proto.kind, Label::Kind::CallPrototype);
  ASSERT_EQ(proto.proto_returns.size(), 1u);
  EXPECT_EQ(proto.proto_returns[0].type, Type::B32);
  ASSERT_EQ(proto.proto_params.size(), 1u);
  const auto& icall = std::get<Instruction>(scopes[1]->body[5]);
  EXPECT_EQ(icall.opcode, "call");
  ASSERT_EQ(icall.operands.size(), 4u);
  EXPECT_EQ(icall.operands[1].name, "%rd7");
  EXPECT_EQ(icall.operands[3].name, "prototype_3");

  ASSERT_EQ(labels.size(), 4u);
  EXPECT_EQ(labels[1]->name, "$L_tbl");
  EXPECT_EQ(labels[1]->kind, Label::Kind::BranchTargets);
  EXPECT_EQ(labels[1]->targets, (std::vector<std::string>{"$L__BB0_2", "$L__BB0_3", "$L__BB0_4"}));
  EXPECT_EQ(labels[0]->kind, Label::Kind::Plain);
  const Instruction* brx = nullptr;
  for (auto* in : insns_)
    if (in->opcode == "brx") brx = in;
  ASSERT_NE(brx, nullptr);
  EXPECT_EQ(brx->modifiers, std::vector<std::string>{".idx"});
  EXPECT_EQ(brx->operands[1].name, "$L_tbl");
}

TEST_F(Constructs, SourceLocations) {
  // "ld.global.u32 %r13, [%rd1+-8];" is on line 90 after one tab.
  const Instruction& in = insn(21);
  EXPECT_EQ(in.loc.line, 90u);
  EXPECT_EQ(in.loc.col, 2u);
  EXPECT_EQ(in.operands[1].loc.line, 90u);
  EXPECT_EQ(kern_->loc.line, 47u);
}

}  // namespace
}  // namespace softgpu::ptx

namespace softgpu::ptx {
namespace {

// sm_90 code qualifies modifiers with "::" (state-space scopes, cache hints).
TEST(QualifiedModifiers, StayInTheirDottedPart) {
  const std::string text =
      ".version 8.0\n.target sm_90\n.address_size 64\n"
      ".visible .entry k(.param .u64 p)\n{\n.reg .b64 %rd<3>;\n.shared .align 8 .b64 bar;\n"
      "mbarrier.arrive.expect_tx.release.cta.shared::cta.b64 %rd1, [bar], 16;\n"
      "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%rd1], [%rd2], 16, [bar];\n"
      "ret;\n}\n";
  auto r = parse(text, "q.ptx");
  ASSERT_TRUE(r.module) << render(r.diagnostics, text);
  std::vector<const Instruction*> ins;
  for (const auto& s : r.module->functions[0].body->body)
    if (auto* in = std::get_if<Instruction>(&s)) ins.push_back(in);
  ASSERT_EQ(ins.size(), 3u);
  EXPECT_EQ(ins[0]->opcode, "mbarrier");
  EXPECT_EQ(ins[0]->modifiers,
            (std::vector<std::string>{".arrive", ".expect_tx", ".release", ".cta", ".shared::cta", ".b64"}));
  EXPECT_EQ(ins[1]->modifiers, (std::vector<std::string>{".async", ".bulk", ".shared::cluster", ".global",
                                                         ".mbarrier::complete_tx::bytes"}));
}

}  // namespace
}  // namespace softgpu::ptx

namespace softgpu::ptx {
namespace {

// The '|' second destination may be a register named without '%'.
TEST(PairDestination, AcceptsPlainRegisterNames) {
  const std::string text =
      ".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k()\n{\n.reg .b32 %r<3>;\n"
      ".reg .pred q;\nshfl.sync.idx.b32 %r1|q, %r2, 0, 31, -1;\nret;\n}\n";
  auto r = parse(text, "q.ptx");
  ASSERT_TRUE(r.module) << render(r.diagnostics, text);
  const Instruction* shfl = nullptr;
  for (const auto& s : r.module->functions[0].body->body)
    if (auto* in = std::get_if<Instruction>(&s); in && in->opcode == "shfl") shfl = in;
  ASSERT_NE(shfl, nullptr);
  ASSERT_TRUE(shfl->operands[0].pair);
  EXPECT_EQ(shfl->operands[0].pair->name, "q");
  EXPECT_EQ(shfl->operands[0].pair->kind, Operand::Kind::Symbol);
}

}  // namespace
}  // namespace softgpu::ptx
